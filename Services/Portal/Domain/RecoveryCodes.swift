import ExposureRules

/// The recovery codes an officer gets when they set up two-factor sign-in: ten, each good for one sign-in without the
/// authenticator. Ten characters of 32 without look-alikes (50 bits), shown as `xxxxx-xxxxx`.
public enum RecoveryCodes {
    public static let count = 10
    static let length = 10
    static let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")

    public static func generate(using random: any RandomSource) -> [String] {
        (0..<count).map { _ in
            let characters = (0..<length).map { _ in alphabet[Int(random.uniform(below: UInt64(alphabet.count)))] }
            return String(characters[..<5]) + "-" + String(characters[5...])
        }
    }

    /// The code as stored (lower case, without the dash and spaces), or nil when what was typed cannot be one.
    public static func normalized(_ typed: String) -> String? {
        let code = typed.lowercased().filter { $0 != "-" && $0 != " " }
        guard code.count == length, code.allSatisfy(alphabet.contains) else { return nil }
        return code
    }
}
