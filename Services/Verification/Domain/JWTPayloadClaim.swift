import Foundation

/// A claim of a JWT's payload read by a name given at run time (`OFFICER_AUTHORITY_CLAIM`), which a typed payload
/// cannot declare. Only for a token whose signature and claims were verified already: it reads, it checks nothing.
enum JWTPayloadClaim {
    /// The claim's strings: a string claim as one, a list's strings (other elements left out); [] for a claim of
    /// another type; nil when the token has no such claim.
    static func strings(named name: String, in token: String) -> [String]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let value = payload[name]
        else { return nil }
        if let text = value as? String { return [text] }
        if let list = value as? [Any] { return list.compactMap { $0 as? String } }
        return []
    }
}
