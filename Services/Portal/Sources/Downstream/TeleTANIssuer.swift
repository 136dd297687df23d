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
        /// The limit of the officer's own health authority (429 `authority_rate_limited`).
        case authorityLimited
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
            middlewares: [CredentialClientMiddleware.bearer(bearer)] + ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
        )
    }

    public func issue(_ kind: TeleTANKind, bearer: String) async -> Outcome {
        let headers = Operations.createTeleTan.Input.Headers(
            X_hyphen_CWA_hyphen_TELETAN_hyphen_TYPE: kind == .event ? .EVENT : .TEST,
            Idempotency_hyphen_Key: Codes.idempotencyKey(using: random)
        )
        return await call(bearer: bearer, asking: "a \(kind.rawValue) teleTAN") { client in
            switch try await client.createTeleTan(headers: headers) {
            case .created(let created): .issued(try created.body.json.value)
            case .tooManyRequests(let refusal): Self.limit(try? refusal.body.json.error)
            case .unauthorized, .badRequest: .refused
            case .internalServerError: .unavailable
            case .forbidden: .forbiddenCaller
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func issue(_ kind: FamilyCodeKind, bearer: String) async -> Result<IssuedCode> {
        let body = Components.Schemas.OneTimeCodeRequest(kind: kind == .covidShield ? .COVIDSHIELD : .PROTEGO)
        return await call(bearer: bearer, asking: "a \(kind.rawValue) code") { client in
            switch try await client.issueOneTimeCode(body: .json(body)) {
            case .created(let created):
                let issued = try created.body.json
                return .issued(IssuedCode(code: issued.code, region: issued.region, validUntil: issued.validUntil))
            case .tooManyRequests(let refusal): return Self.limit(try? refusal.body.json.error)
            case .unauthorized, .badRequest: return .refused
            case .internalServerError: return .unavailable
            case .forbidden: return .forbiddenCaller
            case .undocumented(let status, _): return .undocumented(status)
            }
        }
    }

    /// Which limit a 429 names: the authority's own, or the global one (every other code).
    private static func limit<Value>(_ code: String?) -> Answer<Value> {
        code == "authority_rate_limited" ? .authorityLimited : .rateLimited
    }

    /// What one issuance operation answered, before the steps every issuance shares turn it into a `Result`.
    private enum Answer<Value> {
        case issued(Value), rateLimited, authorityLimited, refused, unavailable, undocumented(Int)
        /// Verification knows this service's token under a name whose row does not give it issuance (a deployment
        /// error: `INTERNAL_API_TOKENS` must name it `portal`).
        case forbiddenCaller
    }

    /// Calls verification with the officer's token; what a refusal, an undocumented status or an unreachable
    /// verification means (and logs) is the same for every kind of issuance.
    private func call<Value>(bearer: String, asking what: String, _ operation: (Client) async throws -> Answer<Value>) async -> Result<Value> {
        do {
            switch try await operation(client(bearer: bearer)) {
            case .issued(let value):
                return .issued(value)
            case .rateLimited:
                return .rateLimited
            case .authorityLimited:
                return .authorityLimited
            case .refused:
                logger.warning("verification refused the request", metadata: ["asked": "\(what)"])
                return .refused
            case .unavailable:
                return .unavailable
            case .forbiddenCaller:
                logger.error("verification does not let this service's token issue; its INTERNAL_API_TOKENS must name it portal")
                return .unavailable
            case .undocumented(let status):
                logger.error("verification answered an undocumented status", metadata: ["status": "\(status)"])
                return .unavailable
            }
        } catch {
            logger.error("verification could not be reached", metadata: ["error": "\(type(of: error))", "cause": "\((error as? ClientError).map { String(describing: $0.underlyingError) } ?? "-")"])
            return .unavailable
        }
    }
}
