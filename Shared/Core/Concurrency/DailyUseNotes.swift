import Synchronization

/// Which credentials' use of today this replica has already written, so that a credential's "last day used" costs one
/// write per credential, day and replica instead of one per request. Nothing is evicted: the keys are a deployment's
/// credentials (issuer keys, lab credentials), a bounded set.
public final class DailyUseNotes: Sendable {
    private let written = Mutex<[String: Int64]>([:])

    public init() {}

    /// Runs `write` when `credential`'s use on `day` is not yet written here; a write that fails is tried again by the
    /// next use.
    public func note(_ credential: String, day: Int64, write: () async throws -> Void) async throws {
        let due = written.withLock { written in
            guard (written[credential] ?? .min) < day else { return false }
            written[credential] = day
            return true
        }
        guard due else { return }
        do {
            try await write()
        } catch {
            written.withLock { written in
                if written[credential] == day { written[credential] = nil }
            }
            throw error
        }
    }
}
