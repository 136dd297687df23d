import HTTPTypes
import Hummingbird

/// Lets through only requests that carry the token of a configured caller (`ServiceTokens`); answers every other
/// request 401 before anything else of it is read. `/health/live` stays open: callers' readiness checks and load
/// balancers ask it, and it says only that the process runs.
public struct ServiceTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    private let tokens: ServiceTokens
    private static var headerName: HTTPField.Name { HTTPField.Name(ServiceTokens.header)! }

    public init(tokens: ServiceTokens) {
        self.tokens = tokens
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/health/live" { return try await next(request, context) }
        guard let presented = request.headers[Self.headerName], tokens.caller(presenting: presented) != nil else {
            throw APIError(.unauthorized, code: "unknown_caller", message: "This listener answers only services that present their token in \(ServiceTokens.header).")
        }
        return try await next(request, context)
    }
}
