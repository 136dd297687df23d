import HTTPTypes
import Hummingbird

/// Headers that keep the portal's pages to themselves: no framing, no foreign scripts or styles, no caching
/// of pages that show teleTANs, no referrer leaking paths; and, when officers reach it over https, no plain-http
/// visit after the first (a network that rewrites the link would otherwise see the sign-in).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Whether to send `Strict-Transport-Security`: when `PUBLIC_URL` is https (TLS may end at a proxy in front).
    let strictTransportSecurity: Bool

    static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        if strictTransportSecurity {
            // A year, as browsers' preload lists ask; the portal's own host only, not the authority's other sites.
            response.headers[HTTPField.Name("Strict-Transport-Security")!] = "max-age=31536000"
        }
        if response.headers[.cacheControl] == nil {
            // A teleTAN page must not come back from a cache or the back button.
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
