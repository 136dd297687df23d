import Hummingbird
import Logging
import PortalDomain

/// Every failure of a portal route becomes a friendly page in the officer's language: a `PortalError` as it
/// says, Hummingbird's own errors (unknown path, wrong method) by status, anything else a plain 500 page whose
/// details go to the log only. No stack trace or internal message ever reaches the browser.
struct HTMLErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let pages: PageRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let language = Language.preferred(acceptLanguage: request.headers[.acceptLanguage])
            let problem: PortalError
            switch error {
            case let error as PortalError:
                problem = error
            case let error as any HTTPResponseError:
                problem = .forStatus(error.status)
            default:
                context.logger.error("unexpected error", metadata: ["route": "\(context.endpointPath ?? "unmatched")", "error": "\(type(of: error))"])
                problem = .internalError
            }
            return pages.problem(problem, language: language, session: nil)
        }
    }
}
