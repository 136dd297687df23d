import Foundation
import ExposureRules

/// The authorities page's form for a new health authority, read into an `AuthorityRecord` with verification's rules
/// (openapi/verification.yaml, `NewAuthority`), so that a mistyped field is answered on the page in the officer's
/// language rather than as verification's 400.
public enum AuthorityForm {
    public enum Problem: Error, Equatable {
        case invalidID
        case invalidName
        case invalidRegions
        case invalidLimit
    }

    /// At most this many regions (verification's `maxItems`).
    public static let maxRegions = 32

    /// `id`, `name`, `regions` (separated by commas or blanks; none for every region), `family-<family>` ticked, and
    /// the optional limits `per-hour` and `per-day` (its officers') and `per-key-hour` and `per-key-day` (each of its
    /// issuer keys'). A new authority is enabled.
    public static func parse(_ fields: [String: String]) throws(Problem) -> AuthorityRecord {
        let id = fields["id"]?.trimmingCharacters(in: .whitespaces) ?? ""
        guard AuthorityID.isWellFormed(id) else { throw .invalidID }
        let name = fields["name"]?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !name.isEmpty, name.count <= 100, !name.contains(where: \.isNewline) else { throw .invalidName }
        var regions: [String] = []
        for region in (fields["regions"] ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) where !regions.contains(region) {
            guard isRegion(region) else { throw .invalidRegions }
            regions.append(region)
        }
        guard regions.count <= maxRegions else { throw .invalidRegions }
        var record = AuthorityRecord(
            id: id, name: name, regions: regions, families: AuthorityRecord.knownFamilies.filter { fields["family-\($0)"] != nil },
            teleTANsPerHour: nil, teleTANsPerDay: nil, disabled: false
        )
        try applyLimits(fields, to: &record)
        return record
    }

    /// Sets the four limits of `record` from `per-hour`, `per-day`, `per-key-hour` and `per-key-day`: the new form's
    /// and the limits form of an authority's row, where an emptied field removes the authority's own limit.
    public static func applyLimits(_ fields: [String: String], to record: inout AuthorityRecord) throws(Problem) {
        record.teleTANsPerHour = try limit(fields["per-hour"], maximum: 1_000_000)
        record.teleTANsPerDay = try limit(fields["per-day"], maximum: 10_000_000)
        record.issuerCodesPerHour = try limit(fields["per-key-hour"], maximum: 1_000_000)
        record.issuerCodesPerDay = try limit(fields["per-key-day"], maximum: 10_000_000)
    }

    /// 1 to 16 of letters, digits, `_` and `-` (verification's `Region`).
    static func isRegion(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 16 else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }

    /// An empty field is no limit of the authority's own.
    private static func limit(_ text: String?, maximum: Int) throws(Problem) -> Int? {
        let trimmed = text?.trimmingCharacters(in: .whitespaces) ?? ""
        if trimmed.isEmpty { return nil }
        guard let value = Int(trimmed), (1...maximum).contains(value) else { throw .invalidLimit }
        return value
    }
}
