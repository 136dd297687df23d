import Hummingbird
import ServiceLifecycle

/// An app family the submission service serves beside the Corona-Warn-App upload (docs/architecture.md, "Adding a
/// family"): an adapter at the edge, in `Families/<Family>/` (its OpenAPI document, handlers, storage and export),
/// over what this target shares with every family (the key store, the two-phase intake, verification's one-time
/// codes). Each family makes itself from its configuration and a `SubmissionFamilyContext`, and the service registers
/// every enabled family the same way: its routes on the app listener, its jobs beside the service's.
public protocol SubmissionFamily: Sendable {
    /// The family's name in logs and statistics (`covidshield`, `protego`, `lemon`).
    var name: String { get }
    /// Registers the family's routes on the app listener's router: its app has one base URL for all it sends.
    func register(on router: Router<BasicRequestContext>) throws
    /// The family's own periodic work (retention of its own rows, imports), run by every replica; each step is safe to
    /// run on several at once.
    var jobs: [any Service] { get }
}
