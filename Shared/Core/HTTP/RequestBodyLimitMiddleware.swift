import HTTPTypes
import Hummingbird
import NIOCore

/// Reads the request body into memory up to a limit, answering larger bodies with `status`
/// before the rest is read. With `requireLength`, a body without `Content-Length` (chunked) gets the same
/// answer, as the Corona-Warn-App contract asks (406).
public struct RequestBodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    public let maxBytes: Int
    public let status: HTTPResponse.Status
    public let requireLength: Bool
    /// Paths under these prefixes are left to their handlers (`StandardRouter.BodyLimit.exemptPathPrefixes`).
    public let exemptPathPrefixes: [String]

    public init(maxBytes: Int, status: HTTPResponse.Status = .contentTooLarge, requireLength: Bool = false, exemptPathPrefixes: [String] = []) {
        self.maxBytes = maxBytes
        self.status = status
        self.requireLength = requireLength
        self.exemptPathPrefixes = exemptPathPrefixes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post || request.method == .put || request.method == .patch else {
            return try await next(request, context)
        }
        if !exemptPathPrefixes.isEmpty, exemptPathPrefixes.contains(where: request.uri.path.hasPrefix) {
            return try await next(request, context)
        }
        if let lengthText = request.headers[.contentLength] {
            guard let length = Int(lengthText), length <= maxBytes else { throw tooLarge }
        } else if requireLength {
            throw tooLarge
        }
        var request = request
        do {
            _ = try await request.collectBody(upTo: maxBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge
        }
        return try await next(request, context)
    }

    /// Built only when a body is refused: every accepted request passes through here.
    private var tooLarge: APIError {
        APIError(status, code: status == .badRequest ? "body_too_large" : APIError.forStatus(status).code,
                 message: "The request body must be sent with a Content-Length of at most \(maxBytes) bytes.")
    }
}
