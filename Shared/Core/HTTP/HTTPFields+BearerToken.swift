import Foundation
import HTTPTypes

extension HTTPFields {
    /// The credential of `Authorization: Bearer <token>`, trimmed; nil without the header, for another scheme, or
    /// for an empty token. The scheme's name is matched without regard to case (RFC 9110, 11.1).
    public var bearerToken: String? {
        guard let header = self[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
