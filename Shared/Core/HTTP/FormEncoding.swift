import Foundation

/// `application/x-www-form-urlencoded`, as browsers send forms and OAuth token endpoints expect.
public enum FormEncoding {
    /// Field values by name (the first occurrence wins: a duplicated field cannot override a checked one).
    public static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]), fields[name] == nil else { continue }
            fields[name] = parts.count > 1 ? unescape(parts[1]) ?? "" : ""
        }
        return fields
    }

    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes everything but the unreserved characters (RFC 3986 §2.3).
    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    private static func unescape(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
