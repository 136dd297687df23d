import ExposureCore
import Foundation
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import PortalDomain
import VerificationClient

/// Asks verification's internal API for a teleTAN (`POST /version/v1/tan/teletan`) or a one-time code of another app
/// family (`POST /version/v1/codes`) with the officer's bearer token.
///
/// Each teleTAN call sends a new `Idempotency-Key`, which its retries (`RetryingClientMiddleware`) repeat: a retry
/// after a lost answer gets the teleTAN the first attempt issued, so an officer's one request never leaves a second
/// teleTAN that nobody was shown. (The codes' contract has no such key: a retry after a lost answer issues a second
/// code, which nobody sees and which dies unused within 30 minutes.)
public struct TeleTANIssuer: Sendable {
    public enum Result<Value: Sendable & Equatable>: Sendable, Equatable {
        case issued(Value)
        /// Verification's global limit (429).
        case rateLimited
        /// Verification did not accept the token or its roles (401), or refused the request (400).
        case refused
        /// Verification could not be reached or failed (5xx, timeout).
        case unavailable
    }

    public typealias Outcome = Result<String>

    /// A one-time code as verification issued it.
    public struct IssuedCode: Sendable, Equatable {
        public let code: String
        public let region: String
        /// Unix seconds.
        public let validUntil: Int64
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

    /// A client for one call: the bearer token belongs to this officer and this call only.
    private func client(bearer: String) -> Client {
        Client.verification(
            baseURL: baseURL,
            transport: transport,
            middlewares: [BearerTokenMiddleware(token: bearer)] + ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
        )
    }

    public func issue(_ kind: TeleTANKind, bearer: String) async -> Outcome {
        let client = client(bearer: bearer)
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

    public func issue(_ kind: FamilyCodeKind, bearer: String) async -> Result<IssuedCode> {
        let body = Components.Schemas.OneTimeCodeRequest(kind: kind == .covidShield ? .COVIDSHIELD : .PROTEGO)
        do {
            switch try await client(bearer: bearer).issueOneTimeCode(body: .json(body)) {
            case .created(let created):
                let issued = try created.body.json
                return .issued(IssuedCode(code: issued.code, region: issued.region, validUntil: issued.validUntil))
            case .tooManyRequests:
                return .rateLimited
            case .unauthorized, .badRequest:
                logger.warning("verification refused the code request", metadata: ["kind": "\(kind.rawValue)"])
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
