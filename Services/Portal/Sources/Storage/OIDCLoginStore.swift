import ExposureCore
import Foundation
import SQLKit

/// A login started at the OIDC provider and not yet finished: what the callback must check.
public struct PendingOIDCLogin: Sendable {
    public let nonce: String
    public let codeVerifier: String
    public let createdAt: Int64
}

/// Queries on `portal_oidc_logins`, keyed by the SHA-256 of the `state` parameter. Each is taken once.
public struct OIDCLoginStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func save(stateHash: String, _ login: PendingOIDCLogin) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                INSERT INTO portal_oidc_logins (state_hash, nonce, code_verifier, created_at)
                VALUES (\(bind: stateHash), \(bind: login.nonce), \(bind: login.codeVerifier), \(bind: login.createdAt))
                """).run()
        }
    }

    /// Removes and returns the pending login, if there is one: a replayed callback finds nothing.
    public func take(stateHash: String) async throws -> PendingOIDCLogin? {
        try await database.withConnection { connection in
            try await connection.raw("""
                DELETE FROM portal_oidc_logins WHERE state_hash = \(bind: stateHash) RETURNING nonce, code_verifier, created_at
                """).first().map { row in
                PendingOIDCLogin(
                    nonce: try row.decode(column: "nonce", as: String.self),
                    codeVerifier: try row.decode(column: "code_verifier", as: String.self),
                    createdAt: try row.decode(column: "created_at", as: Int64.self)
                )
            }
        }
    }

    public func deleteStarted(before cutoff: Date) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM portal_oidc_logins WHERE created_at < \(bind: cutoff.epochSeconds) RETURNING state_hash").all().count
        }
    }
}
