import Foundation

extension Data {
    /// Decodes base64 in any of the forms phones send: standard or URL alphabet, padded or not (Go's
    /// `base64.StdEncoding` and `RawURLEncoding` and their mixes, as Google's servers accept them). Nil for anything
    /// else, such as characters of neither alphabet, wrong padding or a length no encoding has.
    public init?(lenientBase64 text: String) {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if !standard.hasSuffix("=") {
            switch standard.count % 4 {
            case 0: break
            case 2: standard += "=="
            case 3: standard += "="
            default: return nil
            }
        }
        guard let data = Data(base64Encoded: standard) else { return nil }
        self = data
    }

    /// Decodes unpadded base64url (RFC 4648 §5), as JWS segments are written; nil for padded text or another alphabet.
    public init?(base64URL text: String) {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        self.init(lenientBase64: text)
    }
}
