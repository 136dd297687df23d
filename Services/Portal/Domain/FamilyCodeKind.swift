import ExposureRules

/// The one-time codes of other app families an officer may issue beside the teleTAN (verification's
/// `/version/v1/codes`), offered on the start page only for the kinds the operator enables (`ONE_TIME_CODE_KINDS`).
public enum FamilyCodeKind: String, Sendable, CaseIterable {
    /// CovidShield: 8 digits, valid 10 minutes.
    case covidShield = "COVIDSHIELD"
    /// ProteGO Safe: a PIN of 6 letters and digits, valid 30 minutes.
    case proteGO = "PROTEGO"

    /// The app family of verification's health authorities that may issue it (`AuthorityRecord.families`).
    public var family: String {
        switch self {
        case .covidShield: "covidshield"
        case .proteGO: "protego"
        }
    }

    /// The role verification asks for: the one of TEST teleTANs, since both stand for a positive test.
    public var requiredRole: String { OfficerRoles.hotline }

    /// How long verification keeps a code of this kind valid, to tell the officer.
    public var validitySeconds: Int {
        switch self {
        case .covidShield: 600
        case .proteGO: 1800
        }
    }

    /// The kinds named in `ONE_TIME_CODE_KINDS` (`covidshield`, `protego`, any case), in the order given.
    public static func parseList(_ entries: [String], variable: String) throws(ConfigurationError) -> [FamilyCodeKind] {
        var kinds: [FamilyCodeKind] = []
        for entry in entries {
            guard let kind = FamilyCodeKind(rawValue: entry.uppercased()) else {
                throw ConfigurationError(variable: variable, reason: "names covidshield or protego, got '\(entry)'")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }
}

/// What an officer asked for, as the audit log records it (`TEST`, `EVENT`, `COVIDSHIELD`, `PROTEGO`).
public enum IssuedKind: Sendable, Equatable, Hashable, RawRepresentable {
    case teleTAN(TeleTANKind)
    case code(FamilyCodeKind)

    /// A TEST teleTAN.
    public static let test = IssuedKind.teleTAN(.test)
    /// An EVENT teleTAN.
    public static let event = IssuedKind.teleTAN(.event)

    public init?(rawValue: String) {
        if let kind = TeleTANKind(rawValue: rawValue) {
            self = .teleTAN(kind)
        } else if let kind = FamilyCodeKind(rawValue: rawValue) {
            self = .code(kind)
        } else {
            return nil
        }
    }

    public var rawValue: String {
        switch self {
        case .teleTAN(let kind): kind.rawValue
        case .code(let kind): kind.rawValue
        }
    }
}
