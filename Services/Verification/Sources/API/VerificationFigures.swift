import ExposureStatistics

/// What the verification service counts per day (docs/statistics.md).
enum VerificationFigures {
    /// teleTANs issued to officers, in total (not app-side: officers' requests, through the portal).
    static let teleTANsIssued = DailyFigure("teletans_issued", isAppSide: false)
    /// The same by officer: the breakdown is the `sub` of the officer's token.
    static let teleTANsIssuedByOfficer = DailyFigure("teletans_issued_by_officer", isAppSide: false)
    /// Tests registered by apps, by what was registered (`guid`, `teletan`).
    static let registrations = DailyFigure("registrations", isAppSide: true)
    /// TANs issued to apps.
    static let tansIssued = DailyFigure("tans_issued", isAppSide: true)
    /// TANs spent by uploads (confirmed reservations and one-phase verifications).
    static let tansRedeemed = DailyFigure("tans_redeemed", isAppSide: true)
    /// One-time codes issued by health-authority systems through the issuer listener, by issuer (the name given to
    /// `issuers add`, or `enx:` and an ENX admin key's name); a batch counts each of its codes. Not app-side: the issuers' requests.
    static let codesIssuedByIssuer = DailyFigure("codes_issued_by_issuer", isAppSide: false)

    /// teleTANs issued to officers, by their health authority (`Authority.id`).
    static let teleTANsIssuedByAuthority = DailyFigure("teletans_issued_by_authority", isAppSide: false)
    /// One-time codes issued, by the health authority of the officer or issuer that asked (`Authority.id`); a batch
    /// counts each of its codes.
    static let codesIssuedByAuthority = DailyFigure("codes_issued_by_authority", isAppSide: false)

    /// One-time codes issued, by app family (`AppFamily`: `covidshield`, `protego`; and `enx`), by officers and issuers alike: the
    /// first step of those families' funnel on the statistics page (codes issued, redeemed, uploads).
    static let codesIssued = DailyFigure("codes_issued", isAppSide: false)
    /// One-time codes redeemed by apps, by app family: the funnel's second step (a CovidShield claim, a ProteGO PIN
    /// exchanged for its upload token, an ENX code verified).
    static let codesRedeemed = DailyFigure("codes_redeemed", isAppSide: true)

    static let all = [
        teleTANsIssued, teleTANsIssuedByOfficer, registrations, tansIssued, tansRedeemed, codesIssuedByIssuer, teleTANsIssuedByAuthority,
        codesIssuedByAuthority, codesIssued, codesRedeemed,
    ]
}
