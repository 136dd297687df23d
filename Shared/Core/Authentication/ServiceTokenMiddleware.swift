import HTTPTypes
import Hummingbird

/// Lets through only requests that carry the token of a configured caller (`ServiceTokens`) to a route that caller
/// may call (`CallerPermissions`): any other request is answered before anything else of it is read, 401
/// `unknown_caller` without a caller's token, 403 `forbidden_caller` with the token of a caller whose row does not
/// name the route. `/health/live` stays open: callers' readiness checks and load balancers ask it, and it says only
/// that the process runs.
public struct ServiceTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    private let tokens: ServiceTokens
    private let permissions: CallerPermissions
    private static var headerName: HTTPField.Name { HTTPField.Name(ServiceTokens.header)! }

    public init(tokens: ServiceTokens, permissions: CallerPermissions) {
        self.tokens = tokens
        self.permissions = permissions
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/health/live" { return try await next(request, context) }
        guard let presented = request.headers[Self.headerName], let caller = tokens.caller(presenting: presented) else {
            throw APIError(.unauthorized, code: "unknown_caller", message: "This listener answers only services that present their token in \(ServiceTokens.header).")
        }
        // A path outside the table is no route of this listener (404), whoever asks.
        let path = request.uri.path
        guard permissions.allows(caller, path: path) || !permissions.guards(path) else {
            throw APIError(.forbidden, code: "forbidden_caller", message: "This service token may not call this route.")
        }
        return try await next(request, context)
    }
}
