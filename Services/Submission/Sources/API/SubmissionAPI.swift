import ExposureCore
import ExposureProtocol
import Foundation
import Logging
import OpenAPIRuntime
import SubmissionDomain

/// The handler of `openapi/submission.yaml`. Rules live in `Domain/`, SQL in `Storage/`; this file is the
/// order of work.
struct SubmissionAPI: APIProtocol {
    /// The LatencyMatcher's name for this endpoint.
    static let endpoint = "POST /version/v1/diagnosis-keys"

    let validator: SubmissionValidator
    let store: DiagnosisKeyStore
    let reservations: TANReservations
    let redemptionKeys: RedemptionKeyDeriver
    let padding: KeyPadding
    let latency: LatencyMatcher
    let metrics: SubmissionMetrics
    let maxBodyBytes: Int
    let environment: ServiceEnvironment

    func submitDiagnosisKeys(_ input: Operations.submitDiagnosisKeys.Input) async throws -> Operations.submitDiagnosisKeys.Output {
        let start = ContinuousClock.now
        let isFake: Bool
        do {
            isFake = try FakeRequestHeader.isFake(input.headers.cwa_hyphen_fake)
        } catch {
            metrics.record(SubmissionTally(outcome: .invalidPayload))
            throw error
        }
        // The TAN's form is checked for fake requests too: the apps send a well-formed one with every request,
        // so real and fake requests are answered alike.
        guard let tan = TANHeader.normalized(input.headers.cwa_hyphen_authorization) else {
            metrics.record(SubmissionTally(outcome: .invalidTAN))
            throw Self.invalidTAN
        }
        if isFake {
            // Nothing is parsed or stored: the body is read, as a real one is; verification is asked to reserve a random
            // TAN and confirm a random key, as a real upload asks about its own (see `TANReservations.decoy`); the
            // answer leaves when a real one would.
            metrics.record(SubmissionTally(outcome: .fake))
            if case .application_x_hyphen_protobuf(let stream) = input.body {
                _ = try? await [UInt8](collecting: stream, upTo: maxBodyBytes)
            }
            let reservations = self.reservations, random = environment.random
            await latency.releaseFake(endpoint: Self.endpoint, since: start, decoy: { await reservations.decoy(random: random) })
            return .ok(.init())
        }
        let (tally, error) = await submit(input.body, tan: tan)
        metrics.record(tally)
        if let error { throw error }
        // Fake requests imitate successful real ones, so only those set the release time, and both leave alike.
        latency.record(endpoint: Self.endpoint, seconds: (ContinuousClock.now - start).seconds)
        await latency.release(endpoint: Self.endpoint, since: start)
        return .ok(.init())
    }

    /// A real submission: parse and validate, reserve the TAN, store the keys as pending, confirm the reservation
    /// (which spends the TAN), publish the keys. Returns what to count and, when the request failed, the error to
    /// answer. Whatever fails, either the keys are published with the TAN spent, or the TAN is usable again once the
    /// reservation is released or its lease runs out (docs/reliability.md); `PendingUploadRecovery` settles an
    /// upload this request could not finish.
    private func submit(_ body: Operations.submitDiagnosisKeys.Input.Body, tan: String) async -> (SubmissionTally, APIError?) {
        let bytes: [UInt8]
        do {
            guard case .application_x_hyphen_protobuf(let stream) = body else { throw APIError.forStatus(.unsupportedMediaType) }
            // RequestBodyLimitMiddleware has already refused anything larger; the limit here only bounds memory.
            bytes = try await [UInt8](collecting: stream, upTo: maxBodyBytes)
        } catch {
            return (SubmissionTally(outcome: .invalidPayload), error as? APIError ?? APIError(
                .badRequest, code: "body_too_large", message: "The request body must be at most \(maxBodyBytes) bytes."))
        }
        let now = environment.clock.now()
        let submission: ValidatedSubmission
        do {
            submission = try validator.validate(try validator.parse(bytes), now: now)
        } catch {
            return (SubmissionTally(outcome: .invalidPayload), .badRequest(error.message, code: error.reason.rawValue))
        }
        // The upload's name at verification: the same TAN with the same keys is the same upload (a retry).
        let reservation = redemptionKeys.key(for: tan, keys: submission.keys)

        // 1. Reserve: nothing is spent yet.
        if case .failure(let refused) = await reserve(tan: tan, reservation: reservation) {
            return (refused.tally, refused.error)
        }
        // 2. Store the keys as pending, in a transaction of their own.
        let outcome: StoreOutcome
        do {
            let companions = padding.companions(for: submission.keys, random: environment.random)
            outcome = try await store.storePending(submission.keys, padding: companions, reservation: reservation, submittedAt: now)
        } catch {
            environment.logger.error("storing keys failed", metadata: ["error": "\(type(of: error))"])
            // Nothing of this upload can be published, so its TAN is given back at once: the app's retry (with other
            // keys, too) need not wait for the lease. Should the release fail, the lease runs out by itself.
            _ = try? await reservations.release(keys: [reservation], expiredOnly: false)
            return (SubmissionTally(outcome: .failed), .dependencyUnavailable("database"))
        }
        // 3. Confirm: verification spends the TAN, if the lease still runs.
        let confirmed: Bool
        do {
            confirmed = try await reservations.confirm(key: reservation)
        } catch {
            // Spent or not, we cannot tell: the keys stay pending and the recovery job settles them with verification.
            return (SubmissionTally(outcome: .failed), .dependencyUnavailable("verification service"))
        }
        guard confirmed else {
            // The lease ran out before the keys were stored (a stall): nothing was spent. The app tries again.
            _ = try? await store.discard(reservation: reservation)
            return (SubmissionTally(outcome: .failed), Self.leaseLapsed)
        }
        // 4. Publish. The TAN is spent, so the keys will be published whatever happens here: a failure leaves them to
        // the recovery job, which finds the reservation confirmed. The app is told 200 either way.
        do {
            try await store.publish(reservation: reservation)
        } catch {
            environment.logger.warning("publishing confirmed keys failed; the recovery job will", metadata: ["error": "\(type(of: error))"])
        }
        var dropped = submission.dropped
        dropped[.alreadyStored, default: 0] += submission.keys.count - outcome.inserted
        return (SubmissionTally(outcome: .real, keysStored: outcome.inserted, paddingKeysStored: outcome.paddingInserted, dropped: dropped), nil)
    }

    /// The first phase: succeeds when the TAN is held for this upload (or was spent by it before: a repeat).
    private func reserve(tan: String, reservation: String) async -> Result<Void, RefusedUpload> {
        let answer: TANReservation
        do {
            answer = try await reservations.reserve(tan: tan, key: reservation)
        } catch {
            // No answer that can be used (`DownstreamError`, logged where it happened): nothing was reserved or stored.
            return .failure(RefusedUpload(SubmissionTally(outcome: .failed), .dependencyUnavailable("verification service")))
        }
        switch answer {
        case .refused:
            return .failure(RefusedUpload(SubmissionTally(outcome: .invalidTAN), Self.invalidTAN))
        case .busy(let retryAfter):
            return .failure(RefusedUpload(SubmissionTally(outcome: .failed), Self.tanInUse(retryAfter: retryAfter)))
        case .reserved(forEvent: true):
            // An event teleTAN entitles a host warning, not key submission: refused, and given back unspent.
            _ = try? await reservations.release(keys: [reservation], expiredOnly: false)
            return .failure(RefusedUpload(SubmissionTally(outcome: .invalidTAN), Self.eventTAN))
        case .confirmed(forEvent: true):
            return .failure(RefusedUpload(SubmissionTally(outcome: .invalidTAN), Self.eventTAN))
        case .reserved(forEvent: false), .confirmed(forEvent: false):
            return .success(())
        }
    }

    static let invalidTAN = APIError.forbidden("The TAN is invalid, expired or already used.", code: "invalid_tan")
    static let eventTAN = APIError.forbidden("The TAN was issued for an event, not for key submission.", code: "event_tan")
    static let leaseLapsed = APIError(
        .serviceUnavailable, code: "tan_reservation_lapsed", message: "The upload took too long and was not stored; send it again."
    )

    static func tanInUse(retryAfter: Duration) -> APIError {
        APIError(
            .serviceUnavailable, code: "tan_in_use",
            message: "Another upload with this TAN is in progress; try again in \(max(1, retryAfter.components.seconds)) seconds."
        )
    }
}

/// A real upload answered before its keys were stored: what to count and what to answer.
private struct RefusedUpload: Error {
    let tally: SubmissionTally
    let error: APIError

    init(_ tally: SubmissionTally, _ error: APIError) {
        self.tally = tally
        self.error = error
    }
}
