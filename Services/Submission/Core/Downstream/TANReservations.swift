import ExposureCore
import Foundation
import Logging
import OpenAPIRuntime
import SubmissionDomain
import VerificationClient

/// The submission service's side of the two-phase redemption at verification, through the client generated from
/// `openapi/verification.yaml`: reserve a TAN for an upload, confirm (spend) it once the keys are stored, release it
/// when they could not be (docs/reliability.md).
///
/// Reservations and confirmations of concurrent uploads go in batches (`RequestBatcher`): at most `concurrency`
/// requests of each kind are out at once (one more while they are all slower than the policy's `stalledAfter`), and
/// the uploads that queue behind them go together, one request and one UPDATE at verification for all of them.
/// Releases are rare (a failed upload, the recovery job) and go as they come.
///
/// Every request is safe to repeat (`RetryingClientMiddleware` retries after a lost answer): a reservation names the
/// upload by its key (`RedemptionKeyDeriver`), so reserving or confirming again with the same key answers as before.
public struct TANReservations: Sendable {
    static let concurrency = 1
    /// TANs or keys per request at most: `maxItems` in openapi/verification.yaml.
    static let maxBatch = 100

    private let requests: Requests
    private let reservations: RequestBatcher<Reservation, TANReservation>
    private let confirmations: RequestBatcher<String, TANOrigin?>

    public init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        let requests = Requests(
            client: Client.verification(
                baseURL: baseURL,
                transport: http.transport(timeout: policy.timeout),
                middlewares: ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
            ),
            call: DownstreamCall(service: "verification service", logger: logger)
        )
        self.requests = requests
        reservations = RequestBatcher(slots: Self.concurrency, maxBatch: Self.maxBatch, spareAfter: policy.stalledAfter) {
            try await requests.reserve($0)
        }
        confirmations = RequestBatcher(slots: Self.concurrency, maxBatch: Self.maxBatch, spareAfter: policy.stalledAfter) {
            try await requests.confirm($0)
        }
    }

    /// Asks verification to hold `tan` for the upload named `key`. Throws `DownstreamError` when verification gives
    /// no usable answer.
    public func reserve(tan: String, key: String) async throws -> TANReservation {
        try await reservations.value(for: Reservation(tan: tan, key: key))
    }

    /// Spends the TAN the upload's reservation holds: what the TAN was issued for when it is spent by this upload (now
    /// or before), nil when the lease ran out or the reservation was released first (nothing spent).
    public func confirm(key: String) async throws -> TANOrigin? {
        try await confirmations.value(for: key)
    }

    /// Frees the TANs held by these uploads (with `expiredOnly`, only run-out leases) and says how each stands.
    public func release(keys: [String], expiredOnly: Bool) async throws -> [TANReleaseOutcome] {
        var outcomes: [TANReleaseOutcome] = []
        for start in stride(from: 0, to: keys.count, by: Self.maxBatch) {
            outcomes += try await requests.release(Array(keys[start..<min(start + Self.maxBatch, keys.count)]), expiredOnly: expiredOnly)
        }
        return outcomes
    }

    /// What a fake upload does in place of a real one's two phases: it reserves a fresh random TAN (no stored TAN
    /// matches a random UUID v4, so verification refuses it) and confirms a random key (which holds nothing), through
    /// the same batches as real uploads. The TAN in the fake request's header is never sent. Its failures change
    /// nothing.
    public func decoy(random: any RandomSource) async {
        _ = try? await reserve(tan: Codes.uuidV4(using: random), key: Codes.redemptionKey(using: random))
        _ = try? await confirm(key: Codes.redemptionKey(using: random))
    }
}

extension TANReservations {
    struct Reservation: Sendable {
        let tan: String
        let key: String
    }

    /// One request of each kind, answered in the order asked.
    private struct Requests: Sendable {
        let client: Client
        let call: DownstreamCall

        func reserve(_ batch: [Reservation]) async throws -> [TANReservation] {
            let body = VerificationClient.Components.Schemas.TanReservationBody(tans: batch.map(\.tan), reservationKeys: batch.map(\.key))
            let (output, status) = try await call.send { try await client.reserveTans(body: .json(body)) }
            guard case .ok(let ok) = output else { throw call.unexpected(status: status) }
            let outcomes = try ok.body.json.outcomes
            guard outcomes.count == batch.count else { throw call.unfitting() }
            return try outcomes.map { answer in
                switch answer.outcome {
                case .reserved: return .reserved(try origin(answer.source, region: answer.region, teleTANType: answer.teleTanType))
                case .confirmed: return .confirmed(try origin(answer.source, region: answer.region, teleTANType: answer.teleTanType))
                case .busy: return .busy(retryAfter: .seconds(max(0, answer.retryAfterSeconds ?? 0)))
                case .refused: return .refused
                }
            }
        }

        func confirm(_ keys: [String]) async throws -> [TANOrigin?] {
            let (output, status) = try await call.send { try await client.confirmTans(body: .json(.init(reservationKeys: keys))) }
            guard case .ok(let ok) = output else { throw call.unexpected(status: status) }
            let answer = try ok.body.json
            let origins = answer.origins ?? []
            guard answer.outcomes.count == keys.count, origins.count == keys.count else { throw call.unfitting() }
            return try zip(answer.outcomes, origins).map { outcome, origin in
                outcome == .confirmed ? try self.origin(origin.source, region: origin.region, teleTANType: nil) : nil
            }
        }

        /// What a held or spent TAN was issued for. An answer without its source (a verification of before the
        /// families were bound) is of no use: an upload never spends a TAN whose family it cannot judge.
        private func origin(
            _ source: VerificationClient.Components.Schemas.TanSource?, region: String?,
            teleTANType: VerificationClient.Components.Schemas.TeleTanType?
        ) throws -> TANOrigin {
            guard let source, let known = TANOrigin.Source(rawValue: source.rawValue) else { throw call.unfitting() }
            return TANOrigin(source: known, region: region, isEvent: teleTANType == .EVENT)
        }

        func release(_ keys: [String], expiredOnly: Bool) async throws -> [TANReleaseOutcome] {
            let (output, status) = try await call.send {
                try await client.releaseTans(body: .json(.init(reservationKeys: keys, expiredOnly: expiredOnly)))
            }
            guard case .ok(let ok) = output else { throw call.unexpected(status: status) }
            let outcomes = try ok.body.json.outcomes
            guard outcomes.count == keys.count else { throw call.unfitting() }
            return outcomes.map { outcome in
                switch outcome {
                case .released: .released
                case .confirmed: .confirmed
                case .leased: .leased
                }
            }
        }
    }
}
