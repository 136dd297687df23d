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
///    out (it omits nil) gets them as null.
struct LemonEnvelopeMiddleware: ServerMiddleware {
    /// Operations a device reaches without a JWT.
    static let open: Set<String> = ["postDevice"]
    /// Operations that answer in PascalCase (`Data`, `Meta`).
    static let pascalCase: Set<String> = ["getStatistics", "getGoogleStatistics"]

    let tokens: LemonAccessTokens
    let devices: LemonDeviceStore
    let maxBodyBytes: Int
    let logger: Logger

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let pascal = Self.pascalCase.contains(operationID)
        do {
            var deviceID: String?
            if !Self.open.contains(operationID) {
                let id = try await tokens.deviceID(authorization: request.headerFields[.authorization])
                // A deleted device's tokens die with it.
                guard try await devices.exists(id: id) else { throw LemonRejection.unauthorized("A valid access token is required.") }
                deviceID = id
            }
            var body = body
            if let sent = body, let casing = LemonKeyCasing.byOperation[operationID] {
                let bytes: [UInt8]
                do {
                    bytes = try await [UInt8](collecting: sent, upTo: maxBodyBytes)
                } catch {
                    throw LemonRejection.invalid("The request body is too large.")
                }
                do {
                    body = HTTPBody(try casing.canonicalize(bytes))
                } catch {
                    throw LemonRejection.invalid("A field is sent twice.")
                }
            }
            let (response, responseBody) = try await LemonSession.$deviceID.withValue(deviceID) {
                try await next(request, body, metadata)
            }
            return try await Self.enveloped(response, responseBody, pascal: pascal, maxBytes: maxBodyBytes)
        } catch let rejection as LemonRejection {
            return Self.answer(status: rejection.httpStatus, message: rejection.message, pascal: pascal)
        } catch {
            logger.error("LEMON request failed", metadata: ["operation": "\(operationID)", "error": "\(type(of: error))"])
            return Self.answer(status: .internalServerError, message: "The service could not complete the request.", pascal: pascal)
        }
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
