import ExposureCore
import ExposureProtocol
import Foundation
import Logging
import OpenAPIRuntime
import SubmissionCore
import SubmissionDomain

/// The handler of `openapi/submission.yaml`. Rules live in `Domain/`, SQL in `Storage/`; this file is the
/// order of work.
struct SubmissionAPI: APIProtocol {
    /// The LatencyMatcher's name for this endpoint.
    static let endpoint = "POST /version/v1/diagnosis-keys"

    let validator: SubmissionValidator
    let intake: KeyIntake
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
            let reservations = intake.reservations, random = environment.random
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

    /// A real submission: parse and validate, then the two phases of `KeyIntake`. Returns what to count and, when
    /// the request failed, the error to answer.
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
        switch await intake.upload(submission.keys, tan: tan, lane: .coronaWarnApp, now: now) {
        case .stored(let inserted, let paddingInserted):
            var dropped = submission.dropped
            dropped[.alreadyStored, default: 0] += submission.keys.count - inserted
            return (SubmissionTally(outcome: .real, keysStored: inserted, paddingKeysStored: paddingInserted, dropped: dropped), nil)
        case .refusedTAN:
            return (SubmissionTally(outcome: .invalidTAN), Self.invalidTAN)
        case .eventTAN:
            return (SubmissionTally(outcome: .invalidTAN), Self.eventTAN)
        case .busy(let retryAfter):
            return (SubmissionTally(outcome: .failed), Self.tanInUse(retryAfter: retryAfter))
        case .lapsed:
            return (SubmissionTally(outcome: .failed), Self.leaseLapsed)
        case .unavailable(let dependency):
            return (SubmissionTally(outcome: .failed), .dependencyUnavailable(dependency))
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
