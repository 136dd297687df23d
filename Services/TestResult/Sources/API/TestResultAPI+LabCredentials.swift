import ExposureCore
import ExposureStatistics
import Foundation
import TestResultDomain

/// Lab credentials for the portal's system administrators (openapi/testresult.yaml, `/version/v1/lab-credentials`):
/// listed, created (a new API key, answered once) and revoked one by one, so that a rotation overlaps. Only the
/// portal's service token reaches these routes (`CallerPermissions.testResult`); the portal shows them to system
/// administrators only and audits every step.
extension TestResultAPI {
    func listLabCredentials(_ input: Operations.listLabCredentials.Input) async throws -> Operations.listLabCredentials.Output {
        let credentials = try await credentials.list()
        return .ok(.init(body: .json(.init(credentials: credentials.map(Self.schema)))))
    }

    func createLabCredential(_ input: Operations.createLabCredential.Input) async throws -> Operations.createLabCredential.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        guard LabAPIKey.isValidLabID(body.labId) else {
            throw Self.invalidLabID
        }
        let (created, key) = try await credentials.createAPIKey(labID: body.labId, random: random, now: clock.now())
        logger.notice("lab credential created", metadata: ["lab": "\(body.labId)", "credential": "\(created.fingerprint)"])
        return .created(.init(body: .json(.init(credential: Self.schema(created), apiKey: key))))
    }

    func revokeLabCredential(_ input: Operations.revokeLabCredential.Input) async throws -> Operations.revokeLabCredential.Output {
        let labID = input.path.labId
        let fingerprint = input.path.fingerprint
        guard LabAPIKey.isValidLabID(labID) else {
            throw Self.invalidLabID
        }
        guard fingerprint.utf8.count == LabCredentialSummary.fingerprintLength,
              fingerprint.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else {
            throw APIError.badRequest("A fingerprint is the 12 lowercase hexadecimal characters the list shows.", code: "invalid_fingerprint")
        }
        // Twelve characters name one credential of a lab; were two ever to share them, neither is revoked.
        guard try await credentials.revoke(labID: labID, fingerprint: fingerprint, now: clock.now()) == 1 else {
            throw APIError.notFound("Lab \(labID) has no active credential \(fingerprint).", code: "unknown_credential")
        }
        logger.notice("lab credential revoked", metadata: ["lab": "\(labID)", "credential": "\(fingerprint)"])
        return .noContent(.init())
    }

    private static var invalidLabID: APIError {
        .badRequest("A lab id has 1 to 64 letters, digits, '-', '_' or '.'.", code: "invalid_lab_id")
    }

    /// A credential as the contract lists it.
    private static func schema(_ summary: LabCredentialSummary) -> Components.Schemas.LabCredential {
        Components.Schemas.LabCredential(
            labId: summary.labID,
            kind: summary.kind == .certificate ? .certificate : .api_key,
            fingerprint: summary.fingerprint,
            createdAt: summary.createdAt,
            revokedAt: summary.revokedAt,
            lastUsedDay: summary.lastUsedDay.map { StatisticsDay(number: $0).description }
        )
    }
}
