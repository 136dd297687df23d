import ExposureCore
import Foundation
import Logging
import OpenAPIRuntime
import VerificationClient

/// Spends the one-time codes of the app families at verification (`POST /version/v1/codes/redeem`), through the client
/// generated from `openapi/verification.yaml`. Codes are verification's: this service never stores or logs one.
public struct OneTimeCodes: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// Spent now; the region it was issued for, when (unix seconds), and the upload credential minted with it
        /// for the kinds that have one (ProteGO).
        case redeemed(region: String, issuedAt: Int64, uploadToken: String?)
        /// Unknown, used or expired: the same answer in each case.
        case unknown
        /// Verification throttles failed redemptions (of this phone, its network or everyone); the code was not judged.
        case throttled
    }

    private let client: Client
    public let call: DownstreamCall
    /// The phone's origin, passed on for verification's limits on wrong codes per phone and per network.
    private let origins: PhoneOrigins

    public init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        // One attempt: a redemption is not safe to repeat. A retry after an answer lost on the way would find the code
        // spent and tell the patient it is wrong; a 500 tells the app to try again, and the officer can issue another.
        var once = policy
        once.attempts = 1
        client = Client.verification(
            baseURL: baseURL,
            transport: http.transport(timeout: policy.timeout),
            middlewares: ServiceClients.middlewares(policy: once, serviceToken: serviceToken, logger: logger)
        )
        call = DownstreamCall(service: "verification service", logger: logger)
        origins = PhoneOrigins(serviceToken: serviceToken)
    }

    /// Spends `code` of `kind` for the phone of the request being handled (`ClientAddress.current`). Throws
    /// `DownstreamError` when verification gives no usable answer.
    public func redeem(_ kind: VerificationClient.Components.Schemas.OneTimeCodeKind, code: String) async throws -> Outcome {
        let origin = origins.origin(of: ClientAddress.current).map {
            VerificationClient.Components.Schemas.GuessOrigin(source: $0.source, network: $0.network)
        }
        let body = VerificationClient.Components.Schemas.OneTimeCodeRedemption(kind: kind, code: code, origin: origin)
        let (output, status) = try await call.send { try await client.redeemOneTimeCode(body: .json(body)) }
        switch output {
        case .ok(let ok):
            let answer = try ok.body.json
            return .redeemed(region: answer.region, issuedAt: answer.issuedAt, uploadToken: answer.uploadToken)
        case .notFound: return .unknown
        case .tooManyRequests: return .throttled
        default: throw call.unexpected(status: status)
        }
    }
}
