/// A health authority's id: chosen by a system administrator when the authority is created, never changed, and
/// written into every officer token (the claim `authority`) and every row that belongs to the authority. Verification
/// (which keeps the authorities) and the portal (which scopes its rows by them) check it alike.
public enum AuthorityID {
    /// The authority an installation that had none migrated into.
    public static let `default` = "default"

    /// 1 to 32 of `a-z`, `0-9` and `-`, not starting with `-` (verification's contract, `AuthorityID`).
    public static func isWellFormed(_ id: String) -> Bool {
        guard let first = id.utf8.first, first != UInt8(ascii: "-"), id.utf8.count <= 32 else { return false }
        return id.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }
}
