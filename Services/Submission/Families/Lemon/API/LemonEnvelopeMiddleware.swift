import ExposureCore
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import SubmissionDomain

/// What every LEMON operation passes through, outside `OpenAPIErrorMiddleware`:
/// 1. every operation but `POST /api/v1/devices` needs a valid JWT of a device that still exists (401 before the
///    body is read);
/// 2. request keys are renamed to the document's spelling (`LemonKeyCasing`);
/// 3. every answer gets the envelope: errors (ours, and the `{"error", "message"}` of `OpenAPIErrorMiddleware`)
///    become `{"data": null, "meta": {…}}`, and a success whose `data` or `meta.message` the generated encoder left
///    out (it omits nil) gets them as null;
/// 4. with `LEMON_PAYLOAD_ENCRYPTION`, after the token is checked, the body is opened with the session's keys (MAC
///    first, bound to the method and target) and every answer, errors included, is sealed with a fresh IV
///    (`LemonPayloadCipher`). Every request but a GET must carry a sealed body, an empty plaintext when the operation
///    has none: a token alone (stolen, or from a replayed authentication) then changes nothing. A GET changes nothing
///    and its answer is sealed, so it may come without a body (the apps' HTTP clients send none with a GET). Answers
///    before the token is checked (401) and those of `POST /api/v1/devices` cannot be sealed: there are no keys yet.
/// 5. a deactivated device's token reaches only `setDeviceActive` and `deleteDevice`.
struct LemonEnvelopeMiddleware: ServerMiddleware {
    /// Operations a device reaches without a JWT.
    static let open: Set<String> = ["postDevice"]
    /// What a deactivated device's token still reaches: turning itself on again, and erasing itself.
    static let whileDeactivated: Set<String> = ["setDeviceActive", "deleteDevice"]
    /// Operations whose body carries the device's `signature` (`LemonSignatureShape`).
    static let signed: Set<String> = ["postDevice"]
    /// Operations that answer in PascalCase (`Data`, `Meta`).
    static let pascalCase: Set<String> = ["getStatistics", "getGoogleStatistics"]

    let tokens: LemonAccessTokens
    let devices: LemonDeviceStore
    let maxBodyBytes: Int
    let payloadEncryption: Bool
    let random: any RandomSource
    let logger: Logger

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let pascal = Self.pascalCase.contains(operationID)
        var cipher: LemonPayloadCipher?
        let answer: (HTTPResponse, HTTPBody?)
        do {
            var deviceID: String?
            if !Self.open.contains(operationID) {
                let id = try await tokens.deviceID(authorization: request.headerFields[.authorization])
                // A deleted device's tokens die with it.
                let session = try await devices.session(id: id)
                guard session.exists else { throw LemonRejection.unauthorized("A valid access token is required.") }
                guard session.active || Self.whileDeactivated.contains(operationID) else {
                    throw LemonRejection.unauthorized("The device is deactivated.")
                }
                if payloadEncryption {
                    guard let keys = session.keys else { throw LemonRejection.unauthorized("Authenticate again to open an encrypted session.") }
                    cipher = LemonPayloadCipher(material: keys)
                }
                deviceID = id
            }
            var request = request
            var body = body
            var bytes: [UInt8]?
            if let sent = body {
                do {
                    bytes = try await [UInt8](collecting: sent, upTo: maxBodyBytes)
                } catch {
                    throw LemonRejection.invalid("The request body is too large.")
                }
            }
            // A GET comes with no body or an empty one: nothing to open. Any other request must bring a sealed one.
            if let cipher, !(request.method == .get && (bytes ?? []).isEmpty) {
                let sealed = String(decoding: bytes ?? [], as: UTF8.self)
                bytes = try cipher.openRequest(sealed, method: request.method.rawValue, target: request.path ?? "")
                // What the generated decoder expects, whatever the sealed body was sent as.
                request.headerFields[.contentType] = "application/json"
            }
            if var sent = bytes {
                if let casing = LemonKeyCasing.byOperation[operationID] {
                    do {
                        sent = try casing.canonicalize(sent)
                    } catch {
                        throw LemonRejection.invalid("A field is sent twice.")
                    }
                }
                if Self.signed.contains(operationID) { try LemonSignatureShape.check(sent) }
                body = HTTPBody(sent)
            }
            let (response, responseBody) = try await LemonSession.$deviceID.withValue(deviceID) { [request, body] in
                try await next(request, body, metadata)
            }
            answer = try await Self.enveloped(response, responseBody, pascal: pascal, maxBytes: maxBodyBytes)
        } catch let rejection as LemonRejection {
            answer = Self.answer(status: rejection.httpStatus, message: rejection.message, pascal: pascal)
        } catch {
            logger.error("LEMON request failed", metadata: ["operation": "\(operationID)", "error": "\(type(of: error))"])
            answer = Self.answer(status: .internalServerError, message: "The service could not complete the request.", pascal: pascal)
        }
        guard let cipher else { return answer }
        return try await seal(answer, with: cipher)
    }

    /// The answer as base64 of `IV || ciphertext || MAC`, in text.
    private func seal(_ answer: (HTTPResponse, HTTPBody?), with cipher: LemonPayloadCipher) async throws -> (HTTPResponse, HTTPBody?) {
        var plain: [UInt8] = []
        if let body = answer.1 { plain = try await [UInt8](collecting: body, upTo: max(maxBodyBytes, 1_000_000)) }
        var response = answer.0
        response.headerFields[.contentType] = "text/plain; charset=utf-8"
        response.headerFields[.contentLength] = nil
        return (response, HTTPBody(try cipher.seal(plain, random: random)))
    }

    static func answer(status: HTTPResponse.Status, message: String?, pascal: Bool) -> (HTTPResponse, HTTPBody?) {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let envelope = LemonEnvelope(code: status.code, message: message, pascalCase: pascal)
        return (HTTPResponse(status: status, headerFields: headers), HTTPBody(envelope.bytes))
    }

    /// An error answer of the inner middleware in the envelope; a success with the nulls the encoder left out.
    static func enveloped(
        _ response: HTTPResponse, _ body: HTTPBody?, pascal: Bool, maxBytes: Int
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var bytes: [UInt8] = []
        if let body { bytes = try await [UInt8](collecting: body, upTo: max(maxBytes, 1_000_000)) }
        let object = (try? JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(bytes)))?.value ?? [:]
        guard response.status.kind == .successful else {
            let message = object["message"] as? String ?? response.status.reasonPhrase
            return answer(status: response.status, message: message, pascal: pascal)
        }
        var filled = object
        let data = pascal ? "Data" : "data", meta = pascal ? "Meta" : "meta", message = pascal ? "Message" : "message"
        if filled[data] == nil { filled.updateValue(nil, forKey: data) }
        if var inner = filled[meta] as? [String: (any Sendable)?], inner[message] == nil {
            inner.updateValue(nil, forKey: message)
            filled[meta] = inner
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let out = try encoder.encode(try OpenAPIObjectContainer(unvalidatedValue: filled))
        var response = response
        response.headerFields[.contentLength] = nil
        return (response, HTTPBody(Array(out)))
    }
}

extension LemonRejection {
    var httpStatus: HTTPResponse.Status {
        switch kind {
        case .invalid: .badRequest
        case .unauthorized: .unauthorized
        case .rateLimited: .tooManyRequests
        }
    }

    /// The same refusal for the inner `OpenAPIErrorMiddleware`, whose answer the envelope then wraps.
    var apiError: APIError {
        switch kind {
        case .invalid: .badRequest(message, code: "invalid")
        case .unauthorized: .unauthorized(message)
        case .rateLimited: .tooManyRequests(message)
        }
    }
}
