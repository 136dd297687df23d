import Crypto
import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `authority_signing_keys`: each health authority's versions of its ES256 signing key. The private halves
/// are sealed under the operator's `SIGNING_KEY_ENCRYPTION_KEY` (`sealer`), with the key's id as associated data, so
/// that neither a copy of the database nor a sealed key moved to another row signs anything.
public struct AuthoritySigningKeyStore: Sendable {
    let database: Database
    /// Nil when the operator has not set `SIGNING_KEY_ENCRYPTION_KEY`: keys are listed and published, none is made or
    /// opened.
    let sealer: SecretSealer?

    public init(database: Database, sealer: SecretSealer?) {
        self.database = database
        self.sealer = sealer
    }

    public var canSeal: Bool { sealer != nil }

    /// What `retire` did.
    public enum Retirement: Sendable, Equatable {
        case retired
        /// No live version of that number in the authority.
        case unknown
        /// The version signs: make a new one first.
        case active
    }

    public struct SealingKeyMissing: Error {}

    /// The keys of `authority` (every authority's, without one), by authority and newest version first, retired ones
    /// included.
    public func list(authority: String? = nil) async throws -> [AuthoritySigningKey] {
        try await database.withConnection { connection in
            var query = SQLQueryString("SELECT authority, version, public_key, created_at, created_by, retired_at FROM authority_signing_keys")
            if let authority { query.appendInterpolation(" WHERE authority = \(bind: authority)" as SQLQueryString) }
            query.appendLiteral(" ORDER BY authority, version DESC")
            let rows = try await connection.raw(query).all()
            var newestLive: [String: Int] = [:]
            for row in rows where try row.decode(column: "retired_at", as: Int64?.self) == nil {
                let owner = try row.decode(column: "authority", as: String.self)
                newestLive[owner] = max(newestLive[owner] ?? 0, try row.decode(column: "version", as: Int.self))
            }
            return try rows.map { row in
                let owner = try row.decode(column: "authority", as: String.self)
                let version = try row.decode(column: "version", as: Int.self)
                let retiredAt = try row.decode(column: "retired_at", as: Int64?.self)
                return AuthoritySigningKey(
                    authority: owner, version: version,
                    publicKey: try P256.Signing.PublicKey(rawRepresentation: Data(base64Encoded: try row.decode(column: "public_key", as: String.self)) ?? Data()),
                    createdAt: try row.decode(column: "created_at", as: Int64.self),
                    createdBy: try row.decode(column: "created_by", as: String?.self), retiredAt: retiredAt,
                    state: retiredAt != nil ? .retired : newestLive[owner] == version ? .active : .published
                )
            }
        }
    }

    /// Makes the authority's next version, which signs from now on; the one before stays published until it is retired.
    public func rotate(authority: String, random: any RandomSource, now: Date, createdBy: String?) async throws -> AuthoritySigningKey {
        guard let sealer else { throw SealingKeyMissing() }
        // Two supervisors rotating at once both read the same newest version; the primary key lets one insert win
        // and the other tries the next number. Each round one of them wins, so n at once need n rounds at most.
        for _ in 0..<Self.maxConcurrentRotations {
            let version = try await database.withConnection { connection in
                try await connection.raw("SELECT COALESCE(MAX(version), 0) AS newest FROM authority_signing_keys WHERE authority = \(bind: authority)")
                    .first()?.decode(column: "newest", as: Int.self) ?? 0
            } + 1
            let privateKey = try Self.newPrivateKey(random: random)
            let keyID = AuthoritySigningKey.keyID(authority: authority, version: version)
            let sealed = try sealer.seal(Array(privateKey.rawRepresentation), belongingTo: Array(keyID.utf8))
            let inserted = try await database.withConnection { connection in
                try await !connection.raw("""
                    INSERT INTO authority_signing_keys (authority, version, public_key, sealed_private_key, created_at, created_by)
                    VALUES (\(bind: authority), \(bind: version), \(bind: privateKey.publicKey.rawRepresentation.base64EncodedString()),
                            \(bind: Data(sealed).base64EncodedString()), \(bind: now.epochSeconds), \(bind: createdBy))
                    ON CONFLICT (authority, version) DO NOTHING RETURNING version
                    """).all().isEmpty
            }
            if inserted {
                return AuthoritySigningKey(
                    authority: authority, version: version, publicKey: privateKey.publicKey, createdAt: now.epochSeconds, createdBy: createdBy,
                    retiredAt: nil, state: .active
                )
            }
        }
        throw DatabaseContention()
    }

    /// More rotations of one authority at the same moment than this answer 500 (people rotate, a few a year).
    static let maxConcurrentRotations = 32

    public struct DatabaseContention: Error {}

    /// Retires a published version of `authority`: it leaves the published keys and its private half is erased. The
    /// active version cannot be retired (make a new one first), so an authority that had a key always has one to
    /// sign with.
    public func retire(authority: String, version: Int, now: Date) async throws -> Retirement {
        try await database.withConnection { connection in
            let retired = try await connection.raw("""
                UPDATE authority_signing_keys SET retired_at = \(bind: now.epochSeconds), sealed_private_key = NULL \
                WHERE authority = \(bind: authority) AND version = \(bind: version) AND retired_at IS NULL \
                AND version < (SELECT MAX(version) FROM authority_signing_keys WHERE authority = \(bind: authority) AND retired_at IS NULL) \
                RETURNING version
                """).all()
            if !retired.isEmpty { return .retired }
            let live = try await connection.raw("""
                SELECT version FROM authority_signing_keys WHERE authority = \(bind: authority) AND version = \(bind: version) AND retired_at IS NULL
                """).first()
            return live == nil ? .unknown : .active
        }
    }

    /// The authority's active version and its private half, opened; nil when the authority has no live key.
    public func signer(authority: String) async throws -> (key: AuthoritySigningKey, privateKey: P256.Signing.PrivateKey)? {
        guard let sealer else { throw SealingKeyMissing() }
        // One query: the newest live version is the active one (what `list` calls active), with its sealed half.
        let row = try await database.withConnection { connection in
            try await connection.raw("""
                SELECT version, public_key, sealed_private_key, created_at, created_by FROM authority_signing_keys \
                WHERE authority = \(bind: authority) AND retired_at IS NULL ORDER BY version DESC LIMIT 1
                """).first()
        }
        guard let row, let sealed = try row.decode(column: "sealed_private_key", as: String?.self), let bytes = Data(base64Encoded: sealed),
              let publicBytes = Data(base64Encoded: try row.decode(column: "public_key", as: String.self))
        else { return nil }
        let active = AuthoritySigningKey(
            authority: authority, version: try row.decode(column: "version", as: Int.self),
            publicKey: try P256.Signing.PublicKey(rawRepresentation: publicBytes), createdAt: try row.decode(column: "created_at", as: Int64.self),
            createdBy: try row.decode(column: "created_by", as: String?.self), retiredAt: nil, state: .active
        )
        let opened = try sealer.open(Array(bytes), belongingTo: Array(active.keyID.utf8))
        return (active, try P256.Signing.PrivateKey(rawRepresentation: opened))
    }

    /// A P-256 private scalar from the injected randomness (a draw outside the curve's order, about one in 2³², is
    /// drawn again).
    private static func newPrivateKey(random: any RandomSource) throws -> P256.Signing.PrivateKey {
        for _ in 0..<4 {
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: random.bytes(count: 32)) { return key }
        }
        return try P256.Signing.PrivateKey(rawRepresentation: random.bytes(count: 32))
    }
}
