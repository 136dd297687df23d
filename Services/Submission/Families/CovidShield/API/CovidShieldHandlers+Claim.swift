import ExposureCore
import ExposureNaCl
import Foundation
import OpenAPIRuntime
import SubmissionDomain

extension CovidShieldHandlers {
    /// `POST /claim-key`: the body, the app key's length, the app key never bound, the code spent at verification,
    /// then a new key pair bound to the app key (covidshield.md, in its order).
    func claimKey(_ input: Operations.claimKey.Input) async throws -> Operations.claimKey.Output {
        do {
            let serverPublicKey = try await claim(input.body)
            metrics.claim(.none)
            return .ok(.init(body: .application_x_hyphen_protobuf(HTTPBody(CovidShieldClaimRequest.grantedBody(serverPublicKey: serverPublicKey)))))
        } catch {
            metrics.claim(error.code, throttled: error == .throttled)
            let body = HTTPBody(error.body)
            switch error.status {
            case 400: return .badRequest(.init(body: .application_x_hyphen_protobuf(body)))
            case 401: return .unauthorized(.init(body: .application_x_hyphen_protobuf(body)))
            case 429: return .tooManyRequests(.init(body: .application_x_hyphen_protobuf(body)))
            default: return .internalServerError(.init(body: .application_x_hyphen_protobuf(body)))
            }
        }
    }

    /// The body, whatever its declared type: the reference read it as the protocol's message without looking.
    static func stream(of body: Operations.claimKey.Input.Body) -> HTTPBody {
        switch body {
        case .application_x_hyphen_protobuf(let stream), .any(let stream): stream
        }
    }

    private func claim(_ body: Operations.claimKey.Input.Body) async throws(CovidShieldClaimRejection) -> [UInt8] {
        guard let bytes = try? await [UInt8](collecting: Self.stream(of: body), upTo: CovidShieldClaimRequest.maxBytes) else { throw .unreadable }
        let request = try CovidShieldClaimRequest.parse(bytes)
        do {
            // Before the code: a bound app key must not cost the patient their code.
            if try await keyPairs.isBound(appPublicKey: request.appPublicKey) { throw CovidShieldClaimRejection.appKeyBound }
            guard request.codeIsPlausible else { throw CovidShieldClaimRejection.invalidCode }
            let region: String, issuedAt: Int64
            switch try await codes.redeem(.COVIDSHIELD, code: request.oneTimeCode) {
            case .redeemed(let answeredRegion, let answeredIssuedAt, _): (region, issuedAt) = (answeredRegion, answeredIssuedAt)
            case .unknown: throw CovidShieldClaimRejection.invalidCode
            case .throttled: throw CovidShieldClaimRejection.throttled
            }
            let pair = try CryptoBox.keyPair(using: environment.random)
            let stored = CovidShieldKeyPairStore.NewPair(
                publicKey: pair.publicKey,
                sealedSecretKey: try sealer.seal(pair.secretKey, belongingTo: pair.publicKey),
                region: region,
                validUntil: CovidShieldKeyPairPolicy.validUntil(issuedAt: issuedAt)
            )
            // A concurrent claim with the same app key got there first (its own code spent too).
            guard try await keyPairs.bind(appPublicKey: request.appPublicKey, pair: stored, now: environment.clock.now()) else {
                throw CovidShieldClaimRejection.appKeyBound
            }
            return pair.publicKey
        } catch let rejection as CovidShieldClaimRejection {
            throw rejection
        } catch {
            // Never the code or the key: only what failed.
            logger.error("covidshield key claim failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw .serverError
        }
    }
}
