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

    private let verification: OfficerCall
    private let random: any RandomSource

    public init(
        baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, random: any RandomSource, logger: Logger
    ) {
        verification = OfficerCall(baseURL: baseURL, policy: policy, serviceToken: serviceToken, http: http, logger: logger)
        self.random = random
    }

    public func issue(_ kind: TeleTANKind, bearer: String) async -> Outcome {
        let headers = Operations.createTeleTan.Input.Headers(
            X_hyphen_CWA_hyphen_TELETAN_hyphen_TYPE: kind == .event ? .EVENT : .TEST,
            Idempotency_hyphen_Key: Codes.idempotencyKey(using: random)
        )
        return await verification.perform(bearer: bearer, doing: "issue a \(kind.rawValue) teleTAN", unavailable: .unavailable) { client in
            switch try await client.createTeleTan(headers: headers) {
            case .created(let created): .outcome(.issued(try created.body.json.value))
            case .tooManyRequests(let refusal): .outcome(Self.limit(try? refusal.body.json.error))
            case .unauthorized, .badRequest: .refused(.refused)
            case .internalServerError: .outcome(.unavailable)
            case .forbidden: .forbiddenCaller
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func issue(_ kind: FamilyCodeKind, bearer: String) async -> Result<IssuedCode> {
        let body = Components.Schemas.OneTimeCodeRequest(kind: kind == .covidShield ? .COVIDSHIELD : .PROTEGO)
        return await verification.perform(bearer: bearer, doing: "issue a \(kind.rawValue) code", unavailable: .unavailable) { client in
            switch try await client.issueOneTimeCode(body: .json(body)) {
            case .created(let created):
                let issued = try created.body.json
                return .outcome(.issued(IssuedCode(code: issued.code, region: issued.region, validUntil: issued.validUntil)))
            case .tooManyRequests(let refusal): return .outcome(Self.limit(try? refusal.body.json.error))
            case .unauthorized, .badRequest: return .refused(.refused)
            case .internalServerError: return .outcome(.unavailable)
            case .forbidden: return .forbiddenCaller
            case .undocumented(let status, _): return .undocumented(status)
            }
        }
    }

    /// Which limit a 429 names: the authority's own, or the global one (every other code).
    private static func limit<Value>(_ code: String?) -> Result<Value> {
        code == "authority_rate_limited" ? .authorityLimited : .rateLimited
    }
}
