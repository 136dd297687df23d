import ExposureCore
import Foundation
import Logging
import OpenAPIRuntime
import VerificationClient

/// Spends a TAN at the verification service (`POST /version/v1/tan/verify`, generated client).
///
/// Verification answers 200 when the TAN was valid and is now used, 404 when it is unknown, expired or used.
/// The client times out each attempt and retries only where the request cannot have reached verification's
/// handler (connection failures, 502/503/504; see `RetryingClientMiddleware`), so a retry never spends a TAN.
struct TANVerifier: Sendable {
    let client: Client
    let logger: Logger

    init(baseURL: URL, policy: DownstreamPolicy, http: DownstreamHTTPClient, logger: Logger) {
        self.client = Client.verification(
            baseURL: baseURL,
            transport: http.transport(timeout: policy.timeout),
            middlewares: ServiceClients.middlewares(policy: policy, logger: logger)
        )
        self.logger = logger
    }

    /// Returns when the TAN was valid and is now spent; throws the `APIError` to answer otherwise.
    func spend(_ tan: String) async throws(APIError) {
        let output: VerificationClient.Operations.verifyTan.Output
        do {
            output = try await client.verifyTan(body: .json(.init(tan: tan)))
        } catch let error as ClientError where error.response?.status.code == 404 {
            // A 404 whose body is not the documented JSON is still a refusal.
            throw Self.invalidTAN
        } catch {
            logger.error("verification unreachable", metadata: ["error": "\(Self.describe(error))"])
            throw .dependencyUnavailable("verification service")
        }
        switch output {
        case .ok(let ok):
            // An event teleTAN entitles a host warning, not key submission. The TAN is spent either way:
            // verification consumed it, and rolling back our keys is all we can do.
            if ok.headers.X_hyphen_CWA_hyphen_TELETAN_hyphen_TYPE == .EVENT {
                throw APIError.forbidden("The TAN was issued for an event, not for key submission.", code: "event_tan")
            }
        case .notFound, .badRequest:
            throw Self.invalidTAN
        case .notAcceptable, .internalServerError, .undocumented:
            logger.error("verification failed", metadata: ["status": "\(Self.status(of: output))"])
            throw .dependencyUnavailable("verification service")
        }
    }

    static let invalidTAN = APIError.forbidden("The TAN is invalid, expired or already used.", code: "invalid_tan")

    private static func status(of output: VerificationClient.Operations.verifyTan.Output) -> Int {
        switch output {
        case .ok: 200
        case .badRequest: 400
        case .notFound: 404
        case .notAcceptable: 406
        case .internalServerError: 500
        case .undocumented(let status, _): status
        }
    }

    /// The error's type and cause, without the request (whose body holds the TAN).
    private static func describe(_ error: any Error) -> String {
        guard let clientError = error as? ClientError else { return "\(type(of: error))" }
        return "\(type(of: clientError.underlyingError)): \(clientError.causeDescription)"
    }
}
