import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Turns every error of an OpenAPI operation into a JSON error body with the right status.
///
/// The runtime answers a request it cannot decode with a bare 500 unless told otherwise; here a body,
/// header or content type that does not match the document is a 400 (or 415), a handler's `APIError` is
/// answered as it says, and anything else is a 500 whose details go to the log, not to the client.
public struct OpenAPIErrorMiddleware: ServerMiddleware {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        do {
            return try await next(request, body, metadata)
        } catch {
            let apiError = Self.apiError(for: error, operationID: operationID, logger: logger)
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            return (HTTPResponse(status: apiError.status, headerFields: headers), HTTPBody(apiError.body))
        }
    }

    static func apiError(for error: any Error, operationID: String, logger: Logger) -> APIError {
        if let downstream = (error as? DownstreamError) ?? ((error as? ServerError)?.underlyingError as? DownstreamError) {
            // Logged where it happened (`DownstreamCall`); the client learns only that it may try again.
            return APIError(downstream)
        }
        guard let serverError = error as? ServerError else {
            if let apiError = error as? APIError { return apiError }
            logger.error("request failed", metadata: ["operation": "\(operationID)", "error": "\(type(of: error))"])
            return .internalError()
        }
        if let apiError = serverError.underlyingError as? APIError { return apiError }
        if let decodingError = serverError.underlyingError as? DecodingError {
            return .badRequest(Self.describe(decodingError), code: "malformed_body")
        }
        if serverError.httpStatus.kind == .clientError {
            // A header, content type or body that does not fit the document. The runtime's own text can
            // quote request values, so the message is ours.
            switch serverError.httpStatus.code {
            case 415: return .forStatus(.unsupportedMediaType)
            default:
                return .badRequest("The request does not match the API: \(Self.summary(of: serverError.causeDescription))")
            }
        }
        logger.error(
            "request failed",
            metadata: [
                "operation": "\(operationID)",
                "error": "\(type(of: serverError.underlyingError))",
                "cause": "\(serverError.causeDescription)",
            ]
        )
        return .internalError()
    }

    /// Names the field and the kind of problem, never the value that was sent.
    public static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let components = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return components.isEmpty ? "body" : components.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return parent == "body" ? "The field '\(key.stringValue)' is missing." : "The field '\(key.stringValue)' is missing in \(parent)."
        case .typeMismatch(_, let context):
            return "The field '\(path(context.codingPath))' has the wrong type."
        case .valueNotFound(_, let context):
            return "The field '\(path(context.codingPath))' is null."
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "The body is not valid JSON." }
            return "The field '\(path(context.codingPath))' has an invalid value."
        @unknown default:
            return "The body could not be decoded."
        }
    }

    /// The first sentence of the runtime's description, without quoted values.
    static func summary(of description: String) -> String {
        if description.contains("header") { return "a required header is missing or invalid." }
        if description.contains("body") { return "the body is missing or invalid." }
        if description.contains("content type") || description.contains("Content-Type") { return "unexpected content type." }
        return "invalid request."
    }
}
