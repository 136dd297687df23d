import VerificationDomain

/// The counters an officer's issuance takes (`TeleTANStore.count`), in the order every counting transaction takes
/// them, so that two never wait for each other's rows: the officer's, the authority's clock hour and UTC day (each
/// when it has that limit), everyone's. A refusal names the counter by index; `limits` says whose it is.
struct OfficerIssuanceCounters: Sendable {
    enum Limit: Sendable, Equatable {
        case officer
        case authority
        case global
    }

    let counters: [TeleTANStore.IssuanceCounter]
    let limits: [Limit]

    init(officer: TeleTANStore.IssuanceCounter, authority: [IssuerRateLimit.Counter], global: TeleTANStore.IssuanceCounter) {
        counters = [officer] + authority.map { .init(scope: $0.scope, limit: $0.limit, windowStart: $0.windowStart) } + [global]
        limits = [.officer] + authority.map { _ in .authority } + [.global]
    }

    /// Where everyone's counter is: last.
    var globalIndex: Int { counters.count - 1 }
}
