import Hummingbird

/// Reads the maintenance switch again, when stale, before a request is handled.
struct MaintenanceMiddleware<Context: RequestContext>: RouterMiddleware {
    let state: MaintenanceState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        await state.refreshIfStale()
        return try await next(request, context)
    }
}
