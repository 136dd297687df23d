import Foundation

extension Authority {
    /// The counters of its own limits at `now`, in the order every counting transaction takes them: its clock hour's
    /// (`teleTansPerHour`), then its UTC day's (`teleTansPerDay`), each only when set. They count what its officers
    /// issue, teleTANs and one-time codes together, in `teletan_issuance_counts` beside the officer's and everyone's.
    public func counters(now: Date) -> [IssuerRateLimit.Counter] {
        var counters: [IssuerRateLimit.Counter] = []
        if let perHour = settings.teleTANsPerHour {
            counters.append(.init(scope: "authority-hour:\(id)", limit: perHour, hourOf: now))
        }
        if let perDay = settings.teleTANsPerDay {
            counters.append(.init(scope: "authority-day:\(id)", limit: perDay, dayOf: now))
        }
        return counters
    }

    /// The limits on each of its issuer keys: its own `issuerCodesPerHour` and `issuerCodesPerDay` where they are set
    /// and lower, the installation's otherwise, so that an authority can hold its systems tighter but never looser.
    public func issuerLimit(within installation: IssuerRateLimit) -> IssuerRateLimit {
        IssuerRateLimit(
            perHour: min(installation.perHour, settings.issuerCodesPerHour ?? .max),
            perDay: min(installation.perDay, settings.issuerCodesPerDay ?? .max)
        )
    }
}
