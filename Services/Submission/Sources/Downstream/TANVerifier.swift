import ExposureCore
import Foundation
import Logging
import OpenAPIRuntime
import VerificationClient

/// Spends TANs at the verification service, through the client generated from `openapi/verification.yaml`.
///
/// Verifications go in batches (`BatchedDownstream`): at most `concurrency` requests are out at once (one more while
/// they are all slower than the policy's `stalledAfter`), and the TANs of concurrent submissions that queue behind them
/// go as one `/version/v1/tans/verify` request, which verification answers with one UPDATE. A verification service
/// that does not know that path yet (404, during a rolling upgrade) is asked TAN by TAN on `/version/v1/tan/verify`,
/// and the batch path is tried again after `batchPathRetry`.
///
/// The client times out each attempt and retries after connection failures and 502/503/504
/// (`RetryingClientMiddleware`). Such a request may have reached verification's handler and spent the TAN, so each
/// TAN goes with its submission's redemption key (`RedemptionKeyDeriver`): verification answers the retry as it
/// answered the lost first try.
struct TANVerifier: Sendable {
    /// Requests out at once: one, and a spare once it has been out for the policy's `stalledAfter`, as for the
    /// verification service's lookups at test-result. The fewer, the larger the batches under load; the spare keeps
    /// one slow answer from holding every submission.
    static let concurrency = 1
    /// TANs per request at most: `maxItems` of `TanBatchBody` in openapi/verification.yaml.
    static let maxBatch = 100

    private let verifications: BatchedDownstream<TANRedemption, TANVerdict>

    init(
        baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger,
        batchPathRetry: Duration = .seconds(60), clock: any WallClock = SystemClock()
    ) {
        let requests = TANVerificationRequests(
            client: Client.verification(
                baseURL: baseURL,
                transport: http.transport(timeout: policy.timeout),
                middlewares: ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
            ),
            call: DownstreamCall(service: "verification service", logger: logger)
        )
        // No counter here: the submission service's counts are published per finished hour (`HourlyTally`), so that
        // a single real submission cannot be seen in them. Verification's counters show the mean batch.
        verifications = BatchedDownstream(
            slots: Self.concurrency, maxBatch: Self.maxBatch, policy: policy, batchPathRetry: batchPathRetry, clock: clock, logger: logger,
            noticeWhenMissing: "verification service has no /version/v1/tans/verify yet; verifying TAN by TAN",
            batch: requests.verdicts(for:), single: requests.verdict(for:)
        )
    }

    /// Returns when the TAN was valid and is now spent by this redemption (now or by an earlier try of it); throws the
    /// `APIError` to answer otherwise.
    func spend(_ redemption: TANRedemption) async throws(APIError) {
        let verdict: TANVerdict
        do {
            verdict = try await verifications.answer(for: redemption)
        } catch let error as DownstreamError {
            throw APIError(error)
        } catch {
            // A batch whose answer could not be read: not JSON, or the wrong number of verdicts.
            throw .dependencyUnavailable("verification service")
        }
        switch verdict {
        case .refused:
            throw Self.invalidTAN
        case .valid(let teleTANType):
            // An event teleTAN entitles a host warning, not key submission. The TAN is spent either way:
            // verification consumed it, and rolling back our keys is all we can do.
            if teleTANType == .EVENT {
                throw APIError.forbidden("The TAN was issued for an event, not for key submission.", code: "event_tan")
            }
        }
    }

    /// What a fake submission does in place of `spend`: it asks verification about a fresh random TAN, through the
    /// same batches as real TANs, with a random redemption key. No stored TAN matches a random UUID v4, so
    /// verification refuses it and nothing is spent; the TAN in the fake request's header is never sent. The network
    /// threads that verification's answer wakes are those a real submission's verdict wakes, and without this fake
    /// answers left a little later than real ones (docs/privacy.md). Its failures change nothing.
    func decoy(random: any RandomSource) async {
        _ = try? await verifications.answer(for: TANRedemption(tan: Codes.uuidV4(using: random), key: Codes.redemptionKey(using: random)))
    }

    static let invalidTAN = APIError.forbidden("The TAN is invalid, expired or already used.", code: "invalid_tan")
}

/// A TAN to spend and the redemption key of the submission that spends it (`RedemptionKeyDeriver`).
struct TANRedemption: Sendable {
    let tan: String
    let key: String
}

/// What verification said of one TAN.
enum TANVerdict: Sendable, Equatable {
    /// Valid and now spent; the type of the teleTAN it came from, if it did.
    case valid(teleTANType: VerificationClient.Components.Schemas.TeleTanType?)
    /// Unknown, expired or already used.
    case refused
}

/// The two requests behind `TANVerifier`: a batch of TANs, and one TAN where verification has no batch path.
private struct TANVerificationRequests: Sendable {
    let client: Client
    let call: DownstreamCall

    func verdicts(for redemptions: [TANRedemption]) async throws -> BatchPathFallback<TANRedemption, TANVerdict>.BatchAnswer {
        let body = VerificationClient.Components.Schemas.TanBatchBody(tans: redemptions.map(\.tan), redemptionKeys: redemptions.map(\.key))
        let (output, status) = try await call.send { try await client.verifyTans(body: .json(body)) }
        switch output {
        case .ok(let ok):
            let verdicts = try ok.body.json.verdicts
            guard verdicts.count == redemptions.count else { throw call.unfitting() }
            return .answers(verdicts.map { $0.valid ? .valid(teleTANType: $0.teleTanType) : .refused })
        case .undocumented(404, _):
            return .pathMissing
        default:
            // 401: verification does not know this service's token (VERIFICATION_API_TOKEN against its INTERNAL_API_TOKENS).
            throw call.unexpected(status: status)
        }
    }

    func verdict(for redemption: TANRedemption) async throws -> TANVerdict {
        let body = VerificationClient.Components.Schemas.TanBody(tan: redemption.tan, redemptionKey: redemption.key)
        let answer: (output: VerificationClient.Operations.verifyTan.Output, status: Int)
        do {
            answer = try await call.send { try await client.verifyTan(body: .json(body)) }
        } catch let error as DownstreamError where error.reason == .unexpected(status: 404) {
            // A 404 whose body is not the documented JSON is still a refusal.
            return .refused
        }
        let (output, status) = answer
        switch output {
        case .ok(let ok):
            return .valid(teleTANType: ok.headers.X_hyphen_CWA_hyphen_TELETAN_hyphen_TYPE)
        case .notFound, .badRequest:
            return .refused
        default:
            throw call.unexpected(status: status)
        }
    }
}
