import Hummingbird
import Logging

/// Every error leaves the service as a JSON error body: Hummingbird's own errors (404, 405, 413, …) get
/// one for their status, and an unexpected error is logged (its type only) and answered 500.
public struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            let generic = APIError.forStatus(error.status)
            throw APIError(error.status, code: generic.code, message: error.body ?? generic.message)
        } catch let error as any HTTPResponseError {
            throw APIError.forStatus(error.status)
        } catch {
            context.logger.error("unexpected error", metadata: ["route": "\(context.endpointPath ?? "unmatched")", "error": "\(type(of: error))"])
            throw APIError.internalError()
        }
    }
}
