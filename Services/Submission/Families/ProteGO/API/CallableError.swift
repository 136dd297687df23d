import Foundation
import HTTPTypes

/// An error answer of the ProteGO endpoints, in the Firebase callable envelope
/// `{"error":{"message":"...","status":"<canonical status>"}}` that both apps parse (design sheet protego.md).
public struct CallableError: Error, Sendable, Equatable {
    /// The canonical (gRPC) status names Firebase puts into `error.status`.
    public enum Status: String, Sendable {
        case invalidArgument = "INVALID_ARGUMENT"
        case notFound = "NOT_FOUND"
        case unauthenticated = "UNAUTHENTICATED"
        case resourceExhausted = "RESOURCE_EXHAUSTED"
        case internalError = "INTERNAL"
        case unavailable = "UNAVAILABLE"
    }

    public let httpStatus: HTTPResponse.Status
    public let status: Status
    public let message: String

    public init(_ httpStatus: HTTPResponse.Status, _ status: Status, _ message: String) {
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
    }

    /// What Firebase answers to a request that is not a callable request: another method, another content type, a
    /// body without `data` or with other top-level fields.
    public static let badRequest = CallableError(.badRequest, .invalidArgument, "Bad Request")
    public static let invalidCode = CallableError(.notFound, .notFound, "Invalid code")
    public static let throttled = CallableError(.tooManyRequests, .resourceExhausted, "Too many attempts; try again later.")
    /// The reference (4.1.2) answers a bad token with an empty message.
    public static let unauthenticated = CallableError(.unauthorized, .unauthenticated, "")
    public static let tooLarge = CallableError(.contentTooLarge, .invalidArgument, "The request body must be at most \(ProteGOFamily.maxUploadBytes) bytes.")
    public static let unsupportedMediaType = CallableError(.unsupportedMediaType, .invalidArgument, "The content type must be application/json.")
    public static let internalError = CallableError(.internalServerError, .internalError, "INTERNAL")

    public static func invalidArgument(_ message: String) -> CallableError {
        CallableError(.badRequest, .invalidArgument, message)
    }

    public static func unavailable(_ message: String) -> CallableError {
        CallableError(.serviceUnavailable, .unavailable, message)
    }

    /// The JSON body.
    public var body: [UInt8] {
        let object = ["error": ["message": message, "status": status.rawValue]]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}
