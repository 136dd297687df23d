import ExposureCore
import ExposureProtocol
import Foundation
import Logging
import OpenAPIRuntime

/// The handler of `openapi/submission.yaml`. Rules live in `Domain/`, SQL in `Storage/`; this file is the
/// order of work.
struct SubmissionAPI: APIProtocol {
    /// The LatencyMatcher's name for this endpoint.
    static let endpoint = "POST /version/v1/diagnosis-keys"

    let validator: SubmissionValidator
    let store: DiagnosisKeyStore
    let verifier: TANVerifier
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
            throw TANVerifier.invalidTAN
        }
        if isFake {
            // Nothing is parsed or stored: the body is read, as a real one is; verification is asked about a random
            // TAN, as a real submission asks about its own (see `TANVerifier.decoy`); the answer leaves when a real
            // one would.
            metrics.record(SubmissionTally(outcome: .fake))
            if case .application_x_hyphen_protobuf(let stream) = input.body {
                _ = try? await [UInt8](collecting: stream, upTo: maxBodyBytes)
            }
            let verifier = self.verifier, random = environment.random
            await latency.releaseFake(endpoint: Self.endpoint, since: start, decoy: { await verifier.decoy(random: random) })
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

    /// A real submission: parse, validate, write the keys, spend the TAN, commit. Returns what to count and,
    /// when the request failed, the error to answer.
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
        let companions = padding.companions(for: submission.keys, random: environment.random)
        let verifier = self.verifier
        let redemption = TANRedemption(tan: tan, key: redemptionKeys.key(for: tan, keys: submission.keys))
        do {
            let outcome = try await store.store(submission.keys, padding: companions, submittedAt: now) {
                try await verifier.spend(redemption)
            }
            var dropped = submission.dropped
            dropped[.alreadyStored, default: 0] += submission.keys.count - outcome.inserted
            return (SubmissionTally(outcome: .real, keysStored: outcome.inserted, paddingKeysStored: outcome.paddingInserted, dropped: dropped), nil)
        } catch let error as APIError {
            // From verification: refused (403) or unreachable (500); the keys were rolled back.
            return (SubmissionTally(outcome: error.status == .forbidden ? .invalidTAN : .failed), error)
        } catch {
            // The database failed while writing, before the TAN was sent: nothing stored, the TAN still valid.
            // (A failure of the COMMIT itself, after verification accepted, leaves the TAN spent; the app's retry
            // with the same keys repeats this redemption, which verification accepts again: `RedemptionKeyDeriver`.)
            environment.logger.error("storing keys failed", metadata: ["error": "\(type(of: error))"])
            return (SubmissionTally(outcome: .failed), .dependencyUnavailable("database"))
        }
    }
}
