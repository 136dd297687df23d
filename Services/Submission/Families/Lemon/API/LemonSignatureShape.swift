import Foundation
import OpenAPIRuntime
import SubmissionDomain

/// The shape of a device request's `signature` (its key already in the document's spelling, `LemonKeyCasing`): an
/// object of two strings, `plainTextData` and `signedData`. Anything else that is there (a string, a number, an
/// array, an object missing either or holding another type) is the document's "Invalid signature structure", a 401,
/// and not the malformed body the generated decoder would call it; an absent or null signature is left to the rules
/// ("Missing digital signature", 400).
enum LemonSignatureShape {
    static let key = "signature"

    static func check(_ bytes: [UInt8]) throws(LemonRejection) {
        guard let body = try? JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(bytes)).value,
              let present = body[key], let signature = present
        else { return }
        guard let object = signature as? [String: (any Sendable)?],
              object["plainTextData"].flatMap({ $0 }) is String, object["signedData"].flatMap({ $0 }) is String
        else { throw LemonRejection.unauthorized("Invalid signature structure.") }
    }
}
