import ExposureCore
import Foundation
import OpenAPIRuntime
import SubmissionDomain

/// The handler of `openapi/protego.yaml`: the envelopes in and out. The rules are in `Domain/ProteGO`, the PIN's
/// redemption at verification and the two-phase upload are the service's (`ProteGOCodeRedeemer`,
/// `ProteGOKeyIntake`). Every failure is thrown as a `CallableError`, which `CallableErrorMiddleware` answers.
struct ProteGOAPI: APIProtocol {
    let codes: any ProteGOCodeRedeemer
    let intake: any ProteGOKeyIntake
    let validator: ProteGOUploadValidator
    let metrics: ProteGOMetrics
    let environment: ServiceEnvironment

    func getAccessToken(_ input: Operations.getAccessToken.Input) async throws -> Operations.getAccessToken.Output {
        guard case .json(let request) = input.body else { throw CallableError.badRequest }
        // An empty or malformed PIN cannot be one that was issued: answered as a wrong PIN without asking verification.
        guard let pin = request.data.code.flatMap(ProteGOPIN.normalized) else {
            metrics.accessToken("unknown_code")
            throw CallableError.invalidCode
        }
        let redemption: PINRedemption
        do {
            redemption = try await codes.redeem(pin: pin)
        } catch {
            // Logged where it happened (`DownstreamCall`). Not a 404: the app must try again later, not give up.
            metrics.accessToken("failed")
            throw CallableError.unavailable("The service is unavailable; try again later.")
        }
        switch redemption {
        case .redeemed(let token):
            metrics.accessToken("issued")
            return .ok(.init(body: .json(.init(result: .init(accessToken: token)))))
        case .unknown:
            metrics.accessToken("unknown_code")
            throw CallableError.invalidCode
        case .throttled:
            metrics.accessToken("throttled")
            throw CallableError.throttled
        }
    }

    func uploadDiagnosisKeys(_ input: Operations.uploadDiagnosisKeys.Input) async throws -> Operations.uploadDiagnosisKeys.Output {
        guard case .json(let request) = input.body else { throw CallableError.badRequest }
        let upload = Self.upload(from: request)
        // The token's form first, as the reference checked the token before the payload: a token verification could
        // never have issued is refused without asking it.
        guard let tan = TANHeader.normalized(upload.verificationPayload) else {
            metrics.upload("invalid_token", attestation: upload.hasDeviceAttestation)
            throw CallableError.unauthenticated
        }
        let now = environment.clock.now()
        let keys: [DiagnosisKey]
        do {
            keys = try validator.validate(upload, now: now)
        } catch {
            metrics.upload(error.reason.rawValue, attestation: upload.hasDeviceAttestation)
            throw CallableError.invalidArgument(error.message)
        }
        // Only a token minted from a PIN of this deployment's ProteGO region: a CWA TAN, or a token of another region,
        // is answered as an unknown token.
        let outcome = await intake.upload(keys, tan: tan, lane: .proteGO(region: validator.rules.region), now: now)
        switch outcome {
        case .stored(let inserted, _):
            metrics.upload("stored", attestation: upload.hasDeviceAttestation, keysStored: inserted)
            return .ok(.init(body: .json(.init(result: ""))))
        case .refusedTAN, .eventTAN:
            metrics.upload("invalid_token", attestation: upload.hasDeviceAttestation)
            throw CallableError.unauthenticated
        case .busy:
            metrics.upload("failed", attestation: upload.hasDeviceAttestation)
            throw CallableError.unavailable("Another upload with this token is in progress; try again later.")
        case .lapsed:
            metrics.upload("failed", attestation: upload.hasDeviceAttestation)
            throw CallableError.unavailable("The upload took too long and was not stored; send it again.")
        case .unavailable:
            metrics.upload("failed", attestation: upload.hasDeviceAttestation)
            throw CallableError.unavailable("The service is unavailable; try again later.")
        }
    }

    /// The decoded envelope as the rules take it. Absent fields are what the reference's Go decoder made of them:
    /// zero values.
    static func upload(from request: Components.Schemas.UploadRequest) -> ProteGOUpload {
        let data = request.data
        return ProteGOUpload(
            keys: (data.temporaryExposureKeys ?? []).map {
                ProteGOUpload.Key(
                    key: $0.key, rollingStartNumber: $0.rollingStartNumber, rollingPeriod: $0.rollingPeriod,
                    transmissionRisk: $0.transmissionRisk ?? 0
                )
            },
            regions: data.regions ?? [],
            verificationPayload: data.verificationPayload ?? "",
            deviceVerificationPayload: data.deviceVerificationPayload,
            interoperabilityEnabled: request.isInteroperabilityEnabled ?? false
        )
    }
}
