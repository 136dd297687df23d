import Hummingbird

/// The page being rendered, so that the language switcher of every page leads back to it without each handler
/// passing its path along: set for the length of a GET request by `PageLocationMiddleware`, nil for any other (the
/// switcher of a page answering a POST, such as a teleTAN shown once, leads to the start page instead).
enum PageLocation {
    @TaskLocal static var path: String?
}

struct PageLocationMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get else { return try await next(request, context) }
        return try await PageLocation.$path.withValue(request.uri.description) { try await next(request, context) }
    }
}
