import ExposureCore
import Foundation
import Logging
import OpenAPIRuntime
import SubmissionProteGO
import VerificationClient

/// Redeems app families' one-time codes at verification (`POST /version/v1/codes/redeem`), through the client
/// generated from `openapi/verification.yaml`. A redemption spends the code, so it is never retried after an answer;
/// `RetryingClientMiddleware` retries only connection failures and 502/503/504, which verification answers before its
/// handler runs.
struct OneTimeCodeRedemptions: ProteGOCodeRedeemer {
    private let client: Client
    private let call: DownstreamCall

    init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        client = Client.verification(
            baseURL: baseURL,
            transport: http.transport(timeout: policy.timeout),
            middlewares: ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
        )
        call = DownstreamCall(service: "verification service", logger: logger)
    }

    func redeem(pin: String) async throws -> PINRedemption {
        let (output, status) = try await call.send {
            try await client.redeemOneTimeCode(body: .json(.init(kind: .PROTEGO, code: pin)))
        }
        switch output {
        case .ok(let ok):
            // A PROTEGO redemption always mints the upload credential; an answer without one is of no use.
            guard let token = try ok.body.json.uploadToken else { throw call.unfitting() }
            return .redeemed(uploadToken: token)
        case .notFound:
            return .unknown
        case .tooManyRequests:
            return .throttled
        default:
            throw call.unexpected(status: status)
        }
    }
}
