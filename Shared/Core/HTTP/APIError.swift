import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenAPIRuntime

/// An error answered to the client as `{"error": "<code>", "message": "<text>"}` with its status.
///
/// Handlers throw it; both Hummingbird routes and OpenAPI operations render it the same way.
public struct APIError: Error, Sendable, Equatable {
    public let status: HTTPResponse.Status
    public let code: String
    public let message: String

    public init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public static func badRequest(_ message: String, code: String = "bad_request") -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    public static func unauthorized(_ message: String = "Missing or invalid credentials.") -> APIError {
        APIError(.unauthorized, code: "unauthorized", message: message)
    }

    public static func forbidden(_ message: String, code: String = "forbidden") -> APIError {
        APIError(.forbidden, code: code, message: message)
    }

    public static func notFound(_ message: String = "Not found.", code: String = "not_found") -> APIError {
        APIError(.notFound, code: code, message: message)
    }

    public static func tooManyRequests(_ message: String = "Too many requests; try again later.") -> APIError {
        APIError(.tooManyRequests, code: "rate_limited", message: message)
    }

    public static func internalError(_ message: String = "The service could not complete the request.") -> APIError {
        APIError(.internalServerError, code: "internal_error", message: message)
    }

    public static func dependencyUnavailable(_ dependency: String) -> APIError {
        APIError(.internalServerError, code: "dependency_unavailable", message: "The \(dependency) could not be reached; try again later.")
    }

    /// The JSON body.
    public var body: [UInt8] {
        let object = ["error": code, "message": message]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Array(data)
    }

    /// A generic error body for a status, for errors that carry no code of their own.
    public static func forStatus(_ status: HTTPResponse.Status) -> APIError {
        switch status.code {
        case 400: .badRequest("The request is malformed.")
        case 401: .unauthorized()
        case 403: .forbidden("Not allowed.")
        case 404: .notFound()
        case 405: APIError(status, code: "method_not_allowed", message: "Method not allowed.")
        case 406: APIError(status, code: "not_acceptable", message: "The request body is too large or not sent with a length.")
        case 413: APIError(status, code: "payload_too_large", message: "The request body is too large.")
        case 415: APIError(status, code: "unsupported_media_type", message: "Unsupported content type.")
        case 429: .tooManyRequests()
        case 500...599: .internalError()
        default: APIError(status, code: "error", message: status.reasonPhrase)
        }
    }
}

extension APIError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}

extension APIError: HTTPResponseConvertible {
    public var httpStatus: HTTPResponse.Status { status }
    public var httpHeaderFields: HTTPFields { [.contentType: "application/json; charset=utf-8"] }
    public var httpBody: OpenAPIRuntime.HTTPBody? { HTTPBody(body) }
}
