/// The PIN a health-authority employee reads to the patient: 6 characters of `0-9A-Z` (design sheet protego.md).
public enum ProteGOPIN {
    public static let length = 6

    /// The PIN upper-cased, or nil when it cannot be one (answered as an unknown code without asking verification,
    /// which would only count it as a failed guess).
    public static func normalized(_ value: String) -> String? {
        let upper = value.uppercased()
        let utf8 = Array(upper.utf8)
        guard utf8.count == length, utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            return nil
        }
        return upper
    }
}
