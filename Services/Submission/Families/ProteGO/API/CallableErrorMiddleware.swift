import ExposureCore
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Answers every failure of the ProteGO operations in the callable envelope (`CallableError`) instead of the
/// service's own `{"error","message"}` body: the apps read `error.status`. Before the generated decoder runs, it
/// also applies the envelope's own limits, which the document cannot express: the content type, and the upload's
/// 64,000 bytes (exposure-notifications-server's limit).
struct CallableErrorMiddleware: ServerMiddleware {
    let logger: Logger

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let isUpload = operationID == "uploadDiagnosisKeys"
        do {
            guard Self.isJSON(request.headerFields[.contentType]) else {
                throw isUpload ? CallableError.unsupportedMediaType : CallableError.badRequest
            }
            var body = body
            if isUpload, let stream = body {
                let bytes: [UInt8]
                do {
                    bytes = try await [UInt8](collecting: stream, upTo: ProteGOFamily.maxUploadBytes)
                } catch {
                    throw CallableError.tooLarge
                }
                body = HTTPBody(bytes)
            }
            return try await next(request, body, metadata)
        } catch {
            let answer = Self.callableError(for: error, upload: isUpload, operationID: operationID, logger: logger)
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            return (HTTPResponse(status: answer.httpStatus, headerFields: headers), HTTPBody(answer.body))
        }
    }

    /// `application/json`, with or without parameters (Firebase accepts `application/json; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return type == "application/json"
    }

    static func callableError(for error: any Error, upload: Bool, operationID: String, logger: Logger) -> CallableError {
        let underlying = (error as? ServerError)?.underlyingError ?? error
        if let callable = underlying as? CallableError { return callable }
        if let serverError = error as? ServerError, underlying is DecodingError || serverError.httpStatus.kind == .clientError {
            // The body does not fit the envelope (missing `data`, another field, a wrong type, not JSON). The upload
            // names the field, never the value; the callable answers as Firebase does.
            guard upload, let decoding = underlying as? DecodingError else { return .badRequest }
            return .invalidArgument(OpenAPIErrorMiddleware.describe(decoding))
        }
        logger.error("request failed", metadata: ["operation": "\(operationID)", "error": "\(type(of: underlying))"])
        return .internalError
    }
}
