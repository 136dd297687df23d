import Crypto
import ExposureCore
import ExposureRules
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// Per-authority signing keys (issue #60, `/version/v1/signing-keys` and `/jwks/{authorityId}`): a supervisor makes,
/// lists and retires their authority's versions; the live public halves are published; the private halves are sealed
/// under the operator's key and open only for their own row; another authority's supervisor touches nothing of them.
@Suite struct SigningKeyTests {
    static let path = "/version/v1/signing-keys"

    static func bearer(_ token: String?) -> [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    static func list(_ h: VerificationHarness, token: String?) async throws -> TestResponse {
        try await h.internal.get(path, headers: bearer(token))
    }

    static func rotate(_ h: VerificationHarness, token: String?) async throws -> TestResponse {
        try await h.internal.request(.POST, path, headers: bearer(token))
    }

    static func retire(_ h: VerificationHarness, _ keyID: String, token: String?) async throws -> TestResponse {
        try await h.internal.request(.DELETE, "\(path)/\(keyID)", headers: bearer(token))
    }

    static func keys(_ response: TestResponse) throws -> [[String: Any]] {
        try #require(response.json["keys"] as? [[String: Any]])
    }

    static func published(_ h: VerificationHarness, _ authority: String) async throws -> (response: TestResponse, keys: [[String: String]]) {
        let response = try await h.app.get("/jwks/\(authority)")
        let keys = (try? JSONSerialization.jsonObject(with: Data(response.text.utf8))) as? [[String: String]] ?? []
        return (response, keys)
    }

    /// The operator's sealing key, as the stack gave it to verification.
    static func sealer(_ h: VerificationHarness) throws -> SecretSealer {
        let path = try #require(h.variables["SIGNING_KEY_ENCRYPTION_KEY_FILE"] ?? TestServiceTokens.serviceDefaults["SIGNING_KEY_ENCRYPTION_KEY_FILE"])
        let hex = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return SecretSealer(key: try #require([UInt8](hex: hex)))
    }

    @Test(arguments: TestDatabase.all)
    func aSupervisorMakesListsAndRetiresTheirAuthoritysKeys(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-b")
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            let bert = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "bert", authority: "ha-b")
            let sam = try await h.officerToken(roles: [OfficerRoles.systemAdministrator], subject: "sam")
            let empty = try await Self.list(h, token: sofia)
            Covers.status(200, of: "GET /version/v1/signing-keys", empty)
            #expect(try Self.keys(empty).isEmpty)
            #expect(try await Self.published(h, "default").keys.isEmpty)

            let first = try await Self.rotate(h, token: sofia)
            Covers.status(201, of: "POST /version/v1/signing-keys", first)
            #expect(first.json["keyId"] as? String == "default-v1" && first.json["state"] as? String == "active")
            #expect(first.json["createdBy"] as? String == "sofia" && first.json["authority"] as? String == "default")
            let firstKey = try P256.Signing.PublicKey(pemRepresentation: try #require(first.json["publicKey"] as? String))
            try #require(try await Self.rotate(h, token: sofia).status == 201)
            try #require(try await Self.rotate(h, token: bert).status == 201)

            // The newest signs, the older one stays published; each authority sees its own.
            let own = try Self.keys(try await Self.list(h, token: sofia))
            #expect(own.map { $0["keyId"] as? String } == ["default-v2", "default-v1"])
            #expect(own.map { $0["state"] as? String } == ["active", "published"])
            #expect(try Self.keys(try await Self.list(h, token: bert)).map { $0["keyId"] as? String } == ["ha-b-v1"])
            #expect(try Self.keys(try await Self.list(h, token: sam)).map { $0["keyId"] as? String } == ["default-v2", "default-v1", "ha-b-v1"])

            // Published as JWKs, cacheable; the coordinates are the key's.
            let (jwks, published) = try await Self.published(h, "default")
            Covers.status(200, of: "GET /jwks/{authorityId}", jwks)
            #expect(jwks.header("Cache-Control") == "public, max-age=300")
            #expect(published.map { $0["kid"] } == ["default-v2", "default-v1"])
            let jwk = try #require(published.last)
            #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256" && jwk["alg"] == "ES256" && jwk["use"] == "sig")
            #expect(jwk["x"] == Array(firstKey.rawRepresentation.prefix(32)).base64URLString)
            #expect(jwk["y"] == Array(firstKey.rawRepresentation.suffix(32)).base64URLString)
            Covers.status(404, of: "GET /jwks/{authorityId}", try await h.app.get("/jwks/nowhere"), error: "unknown_authority")
            try await h.app.get("/jwks/Not%20An%20Id").expectError(404, "unknown_authority")

            // The active one cannot be retired; another authority's is unknown to this supervisor.
            Covers.status(409, of: "DELETE /version/v1/signing-keys/{keyId}", try await Self.retire(h, "default-v2", token: sofia), error: "active_signing_key")
            Covers.status(404, of: "DELETE /version/v1/signing-keys/{keyId}", try await Self.retire(h, "default-v1", token: bert), error: "unknown_signing_key")
            try await Self.retire(h, "ha-b-v1", token: sofia).expectError(404, "unknown_signing_key")
            Covers.status(400, of: "DELETE /version/v1/signing-keys/{keyId}", try await Self.retire(h, "default-v01", token: sofia), error: "invalid_signing_key")
            try await Self.retire(h, "nokey", token: sofia).expectError(400, "invalid_signing_key")

            // An officer without the role may do nothing, nor may a call without a token.
            let hanna = try await h.officerToken(roles: ["c19hotline"], subject: "hanna")
            Covers.status(401, of: "GET /version/v1/signing-keys", try await Self.list(h, token: hanna), error: "unauthorized")
            Covers.status(401, of: "POST /version/v1/signing-keys", try await Self.rotate(h, token: hanna), error: "unauthorized")
            Covers.status(401, of: "DELETE /version/v1/signing-keys/{keyId}", try await Self.retire(h, "default-v1", token: hanna), error: "unauthorized")
            try await Self.rotate(h, token: nil).expectError(401, "unauthorized")
            #expect(try Self.keys(try await Self.list(h, token: sam)).count == 3)

            // Retired: no longer published, its private half erased.
            Covers.status(204, of: "DELETE /version/v1/signing-keys/{keyId}", try await Self.retire(h, "default-v1", token: sofia))
            let after = try Self.keys(try await Self.list(h, token: sofia))
            #expect(after.map { $0["state"] as? String } == ["active", "retired"])
            #expect(after.last?["retiredAt"] as? Int == Int(h.clock.now().epochSeconds))
            #expect(try await Self.published(h, "default").keys.map { $0["kid"] } == ["default-v2"])
            let sealed = try await h.database.withConnection { connection in
                try await connection.raw("SELECT sealed_private_key FROM authority_signing_keys WHERE authority = 'default' AND version = 1").first()?
                    .decode(column: "sealed_private_key", as: String?.self)
            }
            #expect(sealed == nil)
            try await Self.retire(h, "default-v1", token: sofia).expectError(404, "unknown_signing_key")
        }
    }

    /// The active version signs what verifies under its published key; the private half is stored sealed, opens only
    /// under the operator's key and only in its own row.
    @Test(arguments: TestDatabase.all)
    func theActiveKeySignsAndItsPrivateHalfOpensOnlyUnderTheOperatorsKeyInItsOwnRow(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-b")
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            let bert = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "bert", authority: "ha-b")
            let made = try await Self.rotate(h, token: sofia)
            let other = try await Self.rotate(h, token: bert)
            try #require(made.status == 201 && other.status == 201)
            let publicKey = try P256.Signing.PublicKey(pemRepresentation: try #require(made.json["publicKey"] as? String))

            let store = AuthoritySigningKeyStore(database: h.database, sealer: try Self.sealer(h))
            let (key, privateKey) = try #require(try await store.signer(authority: "default"))
            #expect(key.keyID == "default-v1" && privateKey.publicKey.rawRepresentation == publicKey.rawRepresentation)
            let message = Array("a certificate's header and payload".utf8)
            #expect(publicKey.isValidSignature(try privateKey.signature(for: message), for: message))

            // The database alone holds no private key: not the raw scalar, and another sealing key opens nothing.
            let rows = try await h.database.withConnection { connection in
                try await connection.raw("SELECT authority, sealed_private_key FROM authority_signing_keys ORDER BY authority").all()
            }
            let stored = try rows.map { try $0.decode(column: "sealed_private_key", as: String.self) }
            #expect(!stored[0].contains(privateKey.rawRepresentation.base64EncodedString()))
            let stranger = AuthoritySigningKeyStore(database: h.database, sealer: SecretSealer(key: [UInt8](repeating: 7, count: 32)))
            await #expect(throws: (any Error).self) { try await stranger.signer(authority: "default") }

            // A sealed key copied into another authority's row does not open there.
            try await h.database.withConnection { connection in
                try await connection.raw("UPDATE authority_signing_keys SET sealed_private_key = \(bind: stored[0]) WHERE authority = 'ha-b'").run()
            }
            await #expect(throws: (any Error).self) { try await store.signer(authority: "ha-b") }

            // A second version signs from now on: the signer is the version the list calls active.
            try #require(try await Self.rotate(h, token: sofia).status == 201)
            let second = try #require(try await store.signer(authority: "default")).key
            let listed = try await store.list(authority: "default").first { $0.state == .active }
            #expect(second.keyID == "default-v2" && second == listed)
            #expect(try await store.signer(authority: "nowhere") == nil)
        }
    }

    /// Without `SIGNING_KEY_ENCRYPTION_KEY` nothing is made (503); listing and publishing still answer. (ENX, which signs
    /// with these keys, refuses to start without it, so it is off here.)
    @Test(arguments: TestDatabase.all)
    func withoutASealingKeyNoKeyIsMade(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["SIGNING_KEY_ENCRYPTION_KEY_FILE": "", "ENX_ENABLED": "false"]) { h in
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            Covers.status(503, of: "POST /version/v1/signing-keys", try await Self.rotate(h, token: sofia), error: "signing_keys_unavailable")
            #expect(try Self.keys(try await Self.list(h, token: sofia)).isEmpty)
            let (jwks, published) = try await Self.published(h, "default")
            #expect(jwks.status == 200 && jwks.text == "[]" && published.isEmpty)
        }
    }

    /// Supervisors rotating at once each get their own version, and exactly one of them is active.
    @Test(arguments: TestDatabase.all)
    func concurrentRotationsEachGetTheirOwnVersion(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], expiresIn: 3600, subject: "sofia")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 { group.addTask { try await Self.rotate(h, token: sofia).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 201, count: 12))
            let listed = try Self.keys(try await Self.list(h, token: sofia))
            #expect(listed.compactMap { $0["version"] as? Int } == Array((1...12).reversed()))
            #expect(listed.filter { $0["state"] as? String == "active" }.count == 1)
        }
    }

    /// A database that fails is a JSON 500, and nothing half-made is published.
    @Test(arguments: TestDatabase.all)
    func databaseFailuresAnswer500(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            try await FailureInjection.withoutTable("authority_signing_keys", in: h.database) {
                Covers.status(500, of: "GET /version/v1/signing-keys", try await Self.list(h, token: sofia), error: "internal_error")
                Covers.status(500, of: "POST /version/v1/signing-keys", try await Self.rotate(h, token: sofia), error: "internal_error")
                Covers.status(500, of: "DELETE /version/v1/signing-keys/{keyId}", try await Self.retire(h, "default-v1", token: sofia), error: "internal_error")
                Covers.status(500, of: "GET /jwks/{authorityId}", try await h.app.get("/jwks/default"), error: "internal_error")
            }
            #expect(try await Self.published(h, "default").keys.isEmpty)
        }
    }
}
