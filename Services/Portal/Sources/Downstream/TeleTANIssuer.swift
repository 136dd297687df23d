import ExposureCore
import Foundation
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import PortalDomain
import VerificationClient

/// Asks verification's internal API for a teleTAN (`POST /version/v1/tan/teletan`) with the officer's bearer token.
///
/// Each call sends a new `Idempotency-Key`, which its retries (`RetryingClientMiddleware`) repeat: a retry after a
/// lost answer gets the teleTAN the first attempt issued, so an officer's one request never leaves a second teleTAN
/// that nobody was shown.
public struct TeleTANIssuer: Sendable {
    public enum Outcome: Sendable, Equatable {
        case issued(String)
        /// Verification's global limit (429).
        case rateLimited
        /// Verification did not accept the token or its roles (401), or refused the request (400).
        case refused
        /// Verification could not be reached or failed (5xx, timeout).
        case unavailable
    }

    private let baseURL: URL
    private let serviceToken: String
    private let transport: AsyncHTTPClientTransport
    private let policy: DownstreamPolicy
    private let random: any RandomSource
    private let logger: Logger

    public init(
        baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, random: any RandomSource, logger: Logger
    ) {
        self.baseURL = baseURL
        self.serviceToken = serviceToken
        self.transport = http.transport(timeout: policy.timeout)
        self.policy = policy
        self.random = random
        self.logger = logger
    }

    public func issue(_ kind: TeleTANKind, bearer: String) async -> Outcome {
        // A client per call: the bearer token belongs to this officer and this call only.
        let client = Client.verification(
            baseURL: baseURL,
            transport: transport,
            middlewares: [BearerTokenMiddleware(token: bearer)] + ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
        )
        let teleTANType: Components.Schemas.TeleTanType = kind == .event ? .EVENT : .TEST
        do {
            let headers = Operations.createTeleTan.Input.Headers(
                X_hyphen_CWA_hyphen_TELETAN_hyphen_TYPE: teleTANType,
                Idempotency_hyphen_Key: Codes.idempotencyKey(using: random)
            )
            switch try await client.createTeleTan(headers: headers) {
            case .created(let created):
                return .issued(try created.body.json.value)
            case .tooManyRequests:
                return .rateLimited
            case .unauthorized, .badRequest:
                logger.warning("verification refused the teleTAN request", metadata: ["type": "\(kind.rawValue)"])
                return .refused
            case .internalServerError:
                return .unavailable
            case .undocumented(let status, _):
                logger.error("verification answered an undocumented status", metadata: ["status": "\(status)"])
                return .unavailable
            }
        } catch {
            logger.error("verification could not be reached", metadata: ["error": "\(type(of: error))"])
            return .unavailable
        }
    }
}
