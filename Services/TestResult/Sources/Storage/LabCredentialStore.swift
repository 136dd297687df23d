import ExposureCore
import Foundation
import SQLKit
import TestResultDomain

/// How a lab proves who it is.
public enum LabCredentialKind: String, Sendable {
    /// A bearer API key, stored as its SHA-256.
    case apiKey = "api_key"
    /// A TLS client certificate, stored as the SHA-256 of its DER encoding (its fingerprint).
    case certificate
}

public struct LabCredentialSummary: Sendable, Equatable {
    /// How many hexadecimal characters of a credential's hash name it in lists.
    public static let fingerprintLength = 12

    public let labID: String
    public let kind: LabCredentialKind
    public let createdAt: Int64
    public let revokedAt: Int64?
    /// The first characters of the key's hash, to tell keys of one lab apart without revealing anything.
    public let fingerprint: String
    /// The last day (days since 1970-01-01, UTC) it was used; nil: never. A day, not a time: enough to see an old key
    /// fall out of use during a rotation, and no record of when a lab sends.
    public let lastUsedDay: Int64?
}

/// Queries on `lab_credentials`: API keys stored as SHA-256, bound to one lab id each.
public struct LabCredentialStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func add(labID: String, keyHash: String, kind: LabCredentialKind = .apiKey, now: Date) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                INSERT INTO lab_credentials (key_hash, lab_id, created_at, revoked_at, kind)
                VALUES (\(bind: keyHash), \(bind: labID), \(bind: now.epochSeconds), NULL, \(bind: kind.rawValue))
                """).run()
        }
    }

    /// A new API key for `labID` (its first, or the next of a rotation): the key, answered once, and its row as
    /// `list` shows it. Only the key's SHA-256 is stored.
    public func createAPIKey(labID: String, random: any RandomSource, now: Date) async throws -> (summary: LabCredentialSummary, key: String) {
        let key = LabAPIKey.generate(using: random)
        let hash = LabAPIKey.hash(key)
        try await add(labID: labID, keyHash: hash, now: now)
        let summary = LabCredentialSummary(
            labID: labID, kind: .apiKey, createdAt: now.epochSeconds, revokedAt: nil,
            fingerprint: String(hash.prefix(LabCredentialSummary.fingerprintLength)), lastUsedDay: nil
        )
        return (summary, key)
    }

    /// The lab id of an active credential of that kind, or nil.
    public func labID(forKeyHash keyHash: String, kind: LabCredentialKind = .apiKey) async throws -> String? {
        try await database.withConnection { connection in
            let row = try await connection.raw("""
                SELECT lab_id FROM lab_credentials WHERE key_hash = \(bind: keyHash) AND kind = \(bind: kind.rawValue) AND revoked_at IS NULL
                """).first()
            return try row?.decode(column: "lab_id", as: String.self)
        }
    }

    /// Notes that the credential was used on `day`; later calls of the day change nothing.
    public func markUsed(keyHash: String, day: Int64) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE lab_credentials SET last_used_day = \(bind: day) \
                WHERE key_hash = \(bind: keyHash) AND (last_used_day IS NULL OR last_used_day < \(bind: day))
                """).run()
        }
    }

    public func list() async throws -> [LabCredentialSummary] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT key_hash, lab_id, kind, created_at, revoked_at, last_used_day FROM lab_credentials ORDER BY lab_id, created_at
                """).all().map { row in
                LabCredentialSummary(
                    labID: try row.decode(column: "lab_id", as: String.self),
                    kind: LabCredentialKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .apiKey,
                    createdAt: try row.decode(column: "created_at", as: Int64.self),
                    revokedAt: try row.decode(column: "revoked_at", as: Int64?.self),
                    fingerprint: String(try row.decode(column: "key_hash", as: String.self).prefix(LabCredentialSummary.fingerprintLength)),
                    lastUsedDay: try row.decode(column: "last_used_day", as: Int64?.self)
                )
            }
        }
    }

    /// Revokes the one active credential of `labID` whose hash starts with `fingerprint` (as `list` shows it), so
    /// that an old key can be retired once its successor is in use. Returns how many matched: 0 (none), 1 (revoked)
    /// or more (the prefix names several, and none was revoked: the caller asks for a longer one).
    public func revoke(labID: String, fingerprint: String, now: Date) async throws -> Int {
        try await database.transaction { connection in
            let matching = try await connection.raw("""
                SELECT key_hash FROM lab_credentials
                WHERE lab_id = \(bind: labID) AND revoked_at IS NULL AND substr(key_hash, 1, length(\(bind: fingerprint))) = \(bind: fingerprint)
                """).all().map { try $0.decode(column: "key_hash", as: String.self) }
            guard matching.count == 1 else { return matching.count }
            try await connection.raw("""
                UPDATE lab_credentials SET revoked_at = \(bind: now.epochSeconds) WHERE key_hash = \(bind: matching[0])
                """).run()
            return 1
        }
    }

    /// Revokes every active credential of a lab (keys and certificates); returns how many.
    public func revoke(labID: String, now: Date) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE lab_credentials SET revoked_at = \(bind: now.epochSeconds)
                WHERE lab_id = \(bind: labID) AND revoked_at IS NULL RETURNING key_hash
                """).all().count
        }
    }
}
