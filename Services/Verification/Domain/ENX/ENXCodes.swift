import ExposureRules

/// The codes of the ENX family (docs/enx.md, "Codes and storage"): a short one of digits that the patient types,
/// and a long one of lower-case letters and digits that the ENX link carries. Both are drawn uniformly from the
/// CSPRNG, without a check digit, as the reference draws them; only their keyed hashes are stored.
public enum ENXCodes {
    static let longCodeAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")

    /// `length` uniform digits: a uniform integer below 10^length, zero-padded.
    public static func shortCode(length: Int, using random: any RandomSource) -> String {
        String((0..<length).map { _ in Character(String(random.uniform(below: 10))) })
    }

    /// `length` characters, each uniform from a–z and 0–9.
    public static func longCode(length: Int, using random: any RandomSource) -> String {
        String((0..<length).map { _ in longCodeAlphabet[Int(random.uniform(below: UInt64(longCodeAlphabet.count)))] })
    }

    /// Whether `text` could be a code of these settings, short or long: a typo of another form is refused before any
    /// lookup. The reference matches codes exactly, with no trimming and no case folding, and so does this.
    public static func isWellFormed(_ text: String, settings: ENXCodeSettings) -> Bool {
        let utf8 = text.utf8
        if utf8.count == settings.shortCodeLength, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        return utf8.count == settings.longCodeLength && utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }
    }
}
