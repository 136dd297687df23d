import ExposureCore
import Hummingbird
import SubmissionDomain

/// The CovidShield retrieval paths as the reference's router served them (`CovidShieldRoute`): what its gorilla/mux
/// routes did not match answers `404 page not found` in plain text (not the service's JSON 404), and a retrieval
/// path asked with another method than GET is judged as the reference judged it (HMAC, date, then 405
/// `method not allowed`). A GET the generated handlers serve passes on to them.
struct CovidShieldRouteMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let retrieval: CovidShieldRetrievalRules
    let clock: any WallClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let route = CovidShieldRoute(path: request.uri.path) else { return try await next(request, context) }
        let isGet = request.method == .get
        let answer: CovidShieldTextAnswer
        switch route {
        case .unmatched:
            answer = .pageNotFound
        case .day(let date, let hmac):
            if isGet, Self.isOneSegment(hmac) { return try await next(request, context) }
            answer = isGet ? .unauthorized : retrieval.otherMethod(date: date, hour: nil, hmac: hmac, now: clock.now())
        case .hour(let date, let hour, let hmac):
            if isGet, Self.isOneSegment(hmac) { return try await next(request, context) }
            answer = isGet ? .unauthorized : retrieval.otherMethod(date: date, hour: hour, hmac: hmac, now: clock.now())
        case .configuration:
            if isGet { return try await next(request, context) }
            answer = .methodNotAllowed
        }
        return GoPlainText.response(.init(code: answer.status), body: answer.text)
    }

    /// An HMAC the generated route takes: one non-empty path segment. An empty one, or one holding a slash, is never
    /// 64 hex digits: the reference answered it 401 like any other wrong HMAC.
    static func isOneSegment(_ hmac: String) -> Bool {
        !hmac.isEmpty && !hmac.contains("/")
    }
}
