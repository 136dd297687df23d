import Foundation
import Hummingbird
import VerificationDomain

/// Reads an ENX request's body as the reference does (docs/enx.md, 2.0): a `Content-Type` that starts with
/// `application/json`, at most 64,000 bytes, exactly one JSON value. Any failure is a 400 with the endpoint's own
/// `errorCode`.
enum ENXRequestBody {
    static let maxBytes = 64_000

    static func read(_ request: Request, refusing code: String) async throws -> ENXJSONValue {
        guard request.headers[.contentType]?.lowercased().hasPrefix(ENXAnswer.contentType) == true else {
            throw ENXRefusal(400, code, "content-type is not application/json")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBytes)
        } catch {
            throw ENXRefusal(400, code, "request body too large")
        }
        do {
            return try JSONDecoder().decode(ENXJSONValue.self, from: Data(buffer: buffer))
        } catch {
            throw ENXRefusal.unparsable(code)
        }
    }

    /// The fields of the body's object, each one of `known`.
    static func fields(_ request: Request, known: Set<String>, refusing code: String) async throws -> ENXFields {
        do {
            return try ENXFields(try await read(request, refusing: code), known: known)
        } catch is ENXFields.Malformed {
            throw ENXRefusal.unparsable(code)
        }
    }
}
