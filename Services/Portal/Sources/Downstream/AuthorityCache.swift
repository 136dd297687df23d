import ExposureCore
import Foundation
import PortalDomain
import Synchronization

/// What officers' health authorities may issue, as verification last answered, kept for a minute, so that the start
/// page offers only those forms without asking verification on every page. A minute-old answer only decides which
/// forms are shown: verification checks the authority again on every issuance.
final class AuthorityCache: Sendable {
    private struct Entry {
        /// Nil when verification could not say: asked again only after `retryAfter`, so that a verification that is
        /// down slows one start page, not every one.
        let families: Set<String>?
        let until: Date
    }

    /// The start page waits for this lookup: one attempt. A verification that does not answer shows every form (it
    /// refuses at issuance what the authority may not issue).
    static func lookupPolicy(_ policy: DownstreamPolicy) -> DownstreamPolicy {
        var lookup = policy
        lookup.attempts = 1
        return lookup
    }

    /// How long an unanswered lookup is not repeated.
    static let retryAfter: TimeInterval = 10

    private let register: AuthorityRegister
    private let clock: any WallClock
    private let lifetime: TimeInterval
    private let entries = Mutex<[String: Entry]>([:])

    init(register: AuthorityRegister, clock: any WallClock, lifetime: TimeInterval = 60) {
        self.register = register
        self.clock = clock
        self.lifetime = lifetime
    }

    /// The app families (`cwa`, `covidshield`, `protego`) the authority `id` may issue now, none when it is disabled,
    /// read with the token `bearer` gives when not known for the last minute; nil when verification could not say.
    func families(of id: String, bearer: () async -> String?) async -> Set<String>? {
        let now = clock.now()
        if let known = entries.withLock({ $0[id] }), known.until > now { return known.families }
        guard let token = await bearer() else { return nil }
        let families: Set<String>? = switch await register.get(id, bearer: token) {
        case .done(let authority): authority.disabled ? [] : Set(authority.families)
        case .disabled: []
        case .unknown, .exists, .refused, .unavailable: nil
        }
        let until = now.addingTimeInterval(families == nil ? Self.retryAfter : lifetime)
        entries.withLock { $0[id] = Entry(families: families, until: until) }
        return families
    }
}
