import ExposureCore
import Foundation
import OpenAPIRuntime
import SubmissionCore
import SubmissionDomain

extension CovidShieldHandlers {
    /// `POST /upload`: the checks of the sheet in its order, then the keys stored and charged to the key pair in one
    /// transaction. The answer always carries its error (`0800` when accepted).
    func upload(_ input: Operations.upload.Input) async throws -> Operations.upload.Output {
        let rejection: CovidShieldUploadRejection
        do {
            metrics.upload(.none, keysStored: try await upload(input.body))
            return .ok(.init(body: .application_x_hyphen_protobuf(HTTPBody(CovidShieldUploadRejection.body(.none)))))
        } catch {
            rejection = error
        }
        metrics.upload(rejection.code, keysStored: 0)
        let body = HTTPBody(CovidShieldUploadRejection.body(rejection.code))
        switch rejection.status {
        case 400: return .badRequest(.init(body: .application_x_hyphen_protobuf(body)))
        case 401: return .unauthorized(.init(body: .application_x_hyphen_protobuf(body)))
        default: return .internalServerError(.init(body: .application_x_hyphen_protobuf(body)))
        }
    }

    /// The body, whatever its declared type (as the claim's).
    static func stream(of body: Operations.upload.Input.Body) -> HTTPBody {
        switch body {
        case .application_x_hyphen_protobuf(let stream), .any(let stream): stream
        }
    }

    /// Returns how many keys were new (stored and charged).
    private func upload(_ body: Operations.upload.Input.Body) async throws(CovidShieldUploadRejection) -> Int {
        guard let bytes = try? await [UInt8](collecting: Self.stream(of: body), upTo: CovidShieldSealedUpload.maxBytes) else { throw .unreadable }
        let sealed = try CovidShieldSealedUpload.parse(bytes)
        let now = environment.clock.now()
        let pair: CovidShieldKeyPairStore.LivePair
        let secretKey: [UInt8]
        do {
            // A pair answers only the app key that claimed it: under any other, it is unknown (the reference's
            // INVALID_KEYPAIR), so the server's public key alone is no credential.
            guard let live = try await keyPairs.live(serverPublicKey: sealed.serverPublicKey, appPublicKey: sealed.appPublicKey, now: now) else {
                throw CovidShieldUploadRejection.unknownKeyPair
            }
            pair = live
            secretKey = try sealer.open(live.sealedSecretKey, belongingTo: sealed.serverPublicKey)
        } catch let rejection as CovidShieldUploadRejection {
            throw rejection
        } catch {
            logger.error("covidshield key pair unreadable", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw .serverError
        }
        let keys = try sealed.open(secretKey: secretKey, rules: keyRules, region: pair.region, now: now)
        let outcome: CovidShieldKeyPairStore.UploadOutcome
        do {
            outcome = try await keyPairs.storeUpload(keys, serverPublicKey: sealed.serverPublicKey, now: now)
        } catch {
            logger.error("covidshield upload not stored", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw .serverError
        }
        switch outcome {
        case .stored(let inserted, let first):
            statistics.count(KeyIntake.keysSubmitted, by: inserted)
            if first { statistics.count(KeyIntake.uploads, breakdown: "covidshield") }
            return inserted
        case .budgetUsedUp: throw .budgetUsedUp
        }
    }
}
