import ExposureCore
import Foundation
import HTTPTypes
import Hummingbird
import VerificationDomain

/// The CovidShield family's issuer endpoint: the seed-era `POST /new-key-claim` (openapi/verification.yaml, tag `issuer`),
/// answered as the reference's Go handlers answered.
extension IssuerAPI {
    static let newKeyClaim = "/new-key-claim"

    /// `POST /new-key-claim` and its CORS preflight.
    func registerCovidShield(on router: Router<BasicRequestContext>) {
        router.on(RouterPath(Self.newKeyClaim), method: .options) { _, _ in Self.corsPreflight() }
        router.post(RouterPath(Self.newKeyClaim)) { request, _ in await self.newKeyClaim(request) }
    }

    /// `POST /new-key-claim`: one 8-digit code for the token's region, valid 10 minutes. The body is ignored (the
    /// sheet's request has none).
    func newKeyClaim(_ request: Request) async -> Response {
        // Exactly `Bearer <token>`, as the reference splits it: another scheme or spelling is no token.
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              case let token = String(header.dropFirst("Bearer ".count)), IssuerToken.isWellFormed(token)
        else { return Self.plainText(.unauthorized, "unauthorized") }
        do {
            guard let issuer = try await issuer(token: token, kind: .covidShield) else {
                return Self.plainText(.unauthorized, "unauthorized")
            }
            let code = try await issue(1, by: issuer, lifetime: lifetimes.covidShieldCode)[0]
            var response = Self.plainText(.ok, code)
            response.headers[.accessControlAllowOrigin] = "*"
            return response
        } catch let limited as LimitReached {
            // As the reference's Go handlers refuse: the status's words in plain text.
            var response = Self.plainText(.tooManyRequests, "too many requests")
            response.headers[.retryAfter] = "\(limited.retryAfterSeconds)"
            return response
        } catch {
            logger.error("new-key-claim failed", metadata: ["error": "\(type(of: error))"])
            return Self.plainText(.internalServerError, "server error")
        }
    }

    /// The reference's answer to a CORS preflight.
    static func corsPreflight() -> Response {
        var headers = HTTPFields()
        headers[.accessControlAllowOrigin] = "*"
        headers[.accessControlAllowMethods] = "POST"
        headers[.accessControlAllowHeaders] = "Accept, Content-Type, Content-Length, Accept-Encoding, Authorization, User-Agent"
        return Response(status: .ok, headers: headers, body: .init())
    }

    /// `text` and a line break in `text/plain`, as Go's `http.Error` writes it.
    static func plainText(_ status: HTTPResponse.Status, _ text: String) -> Response {
        GoPlainText.error(status, text)
    }
}
