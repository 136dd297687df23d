import Foundation

/// An app family a health authority's officers and issuers may issue codes for: the Corona-Warn-App's teleTANs,
/// CovidShield's one-time codes, ProteGO's PINs. Spelled as `authorities add --families` and the API take it.
public enum AppFamily: String, Sendable, CaseIterable, Comparable {
    case cwa
    case covidShield = "covidshield"
    case proteGO = "protego"

    /// The family of a kind of one-time code.
    public init(_ kind: OneTimeCodeKind) {
        switch kind {
        case .covidShield: self = .covidShield
        case .proteGO: self = .proteGO
        }
    }

    /// The families of a comma list (`cwa,protego`), or nil when a word is none of them; blanks around words are
    /// ignored, an empty list is no family.
    public static func parseList(_ text: String) -> Set<AppFamily>? {
        var families: Set<AppFamily> = []
        for word in text.split(separator: ",") {
            guard let family = AppFamily(rawValue: word.trimmingCharacters(in: .whitespaces).lowercased()) else { return nil }
            families.insert(family)
        }
        return families
    }

    public static func < (lhs: AppFamily, rhs: AppFamily) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
