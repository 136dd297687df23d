import Crypto
import ExposureCore
import ExposureRules
import Foundation
import VerificationDomain

/// The health authorities' signing keys (openapi/verification.yaml, `/version/v1/signing-keys` for the portal,
/// `/jwks/{authorityId}` for everyone): a supervisor lists, rotates and retires their authority's versions, a system
/// administrator lists every authority's, and the live public halves are published. Another authority's key is
/// answered as one that does not exist.
extension VerificationAPI {
    func listSigningKeys(_ input: Operations.listSigningKeys.Input) async throws -> Operations.listSigningKeys.Output {
        let officer = try await verifiedOfficer(endpoint: "signing_keys")
        let listed: [AuthoritySigningKey]
        if officer.roles.contains(OfficerRoles.systemAdministrator) {
            listed = try await signingKeys.list()
        } else {
            let authority = try await supervisorsAuthority(officer, endpoint: "signing_keys")
            listed = try await signingKeys.list(authority: authority.id)
        }
        count("signing_keys", "listed")
        return .ok(.init(body: .json(.init(keys: listed.map(Self.schema)))))
    }

    func rotateSigningKey(_ input: Operations.rotateSigningKey.Input) async throws -> Operations.rotateSigningKey.Output {
        let officer = try await verifiedOfficer(endpoint: "signing_key_rotate")
        let authority = try await supervisorsAuthority(officer, endpoint: "signing_key_rotate")
        guard signingKeys.canSeal else {
            count("signing_key_rotate", "unavailable")
            throw APIError(.serviceUnavailable, code: "signing_keys_unavailable", message: "This installation has no SIGNING_KEY_ENCRYPTION_KEY to seal signing keys under.")
        }
        let key = try await signingKeys.rotate(authority: authority.id, random: random, now: clock.now(), createdBy: officer.subject)
        count("signing_key_rotate", "rotated")
        logger.notice("signing key made", metadata: ["key": "\(key.keyID)", "officer": "\(officer.subject)"])
        return .created(.init(body: .json(Self.schema(key))))
    }

    func retireSigningKey(_ input: Operations.retireSigningKey.Input) async throws -> Operations.retireSigningKey.Output {
        let officer = try await verifiedOfficer(endpoint: "signing_key_retire")
        let authority = try await supervisorsAuthority(officer, endpoint: "signing_key_retire")
        let keyID = input.path.keyId
        guard let (owner, version) = AuthoritySigningKey.parse(keyID: keyID) else {
            count("signing_key_retire", "invalid")
            throw APIError.badRequest("A signing key's id is its authority's id, '-v' and its version.", code: "invalid_signing_key")
        }
        // Another authority's key is answered as an unknown one, never as "not yours".
        guard owner == authority.id else {
            count("signing_key_retire", "unknown")
            throw Self.unknownSigningKey
        }
        switch try await signingKeys.retire(authority: authority.id, version: version, now: clock.now()) {
        case .retired:
            count("signing_key_retire", "retired")
            logger.notice("signing key retired", metadata: ["key": "\(keyID)", "officer": "\(officer.subject)"])
            return .noContent(.init())
        case .unknown:
            count("signing_key_retire", "unknown")
            throw Self.unknownSigningKey
        case .active:
            count("signing_key_retire", "active")
            throw APIError(.conflict, code: "active_signing_key", message: "This key signs for your health authority; make a new one before retiring it.")
        }
    }

    func publicSigningKeys(_ input: Operations.publicSigningKeys.Input) async throws -> Operations.publicSigningKeys.Output {
        let id = input.path.authorityId
        guard AuthorityID.isWellFormed(id), try await authorities.authority(id: id) != nil else {
            throw APIError.notFound("There is no health authority of this id.", code: "unknown_authority")
        }
        let live = try await signingKeys.list(authority: id).filter { $0.state != .retired }
        let keys = live.map { key in
            let (x, y) = key.jwkCoordinates
            return Components.Schemas.JSONWebKey(kty: "EC", crv: "P-256", alg: "ES256", use: "sig", kid: key.keyID, x: x, y: y)
        }
        // Cache-Control: `publicKeysCacheControl`, written by `CacheControlMiddleware`.
        return .ok(.init(body: .json(keys)))
    }

    /// Key servers and CDNs may keep the published keys for five minutes: a new version is seen within that.
    static let publicKeysCacheControl = ["publicSigningKeys": "public, max-age=300"]

    private static let unknownSigningKey = APIError.notFound("Your health authority has no live signing key of this id.", code: "unknown_signing_key")

    /// A key as the contract lists it.
    private static func schema(_ key: AuthoritySigningKey) -> Components.Schemas.SigningKey {
        let state: Components.Schemas.SigningKey.statePayload = switch key.state {
        case .active: .active
        case .published: .published
        case .retired: .retired
        }
        return .init(
            keyId: key.keyID, authority: key.authority, version: Int32(clamping: key.version), state: state, publicKey: key.publicKey.pemRepresentation,
            createdAt: key.createdAt, createdBy: key.createdBy, retiredAt: key.retiredAt
        )
    }
}
