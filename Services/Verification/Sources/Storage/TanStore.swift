import ExposureCore
import Foundation
import SQLKit

/// What a verified TAN came from.
public struct RedeemedTAN: Sendable, Equatable {
    public let source: SessionSource
    public let teleTANType: TeleTANType?
}

/// Queries on `tans`: one TAN per registration token, consumed once.
public struct TanStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Stores a TAN for a registration token; false when the token already has one (the unique constraint
    /// decides between concurrent requests).
    public func issue(tanHash: String, tokenHash: String, source: SessionSource, type: TeleTANType?, validUntil: Date, now: Date) async throws -> Bool {
        try await database.withConnection { connection in
            try await !connection.raw("""
                INSERT INTO tans (tan_hash, registration_token_hash, source, teletan_type, valid_until, created_at, redeemed_at)
                VALUES (\(bind: tanHash), \(bind: tokenHash), \(bind: source.rawValue), \(bind: type?.rawValue), \(bind: validUntil.epochSeconds), \(bind: now.epochSeconds), NULL)
                ON CONFLICT (registration_token_hash) DO NOTHING
                RETURNING tan_hash
                """).all().isEmpty
        }
    }

    /// Consumes a TAN if it is known, unexpired and unused, in one statement: of concurrent verifications of one
    /// TAN exactly one gets a row back.
    public func redeem(tanHash: String, now: Date) async throws -> RedeemedTAN? {
        let timestamp = now.epochSeconds
        return try await database.withConnection { connection in
            guard let row = try await connection.raw("""
                UPDATE tans SET redeemed_at = \(bind: timestamp)
                WHERE tan_hash = \(bind: tanHash) AND redeemed_at IS NULL AND valid_until > \(bind: timestamp)
                RETURNING source, teletan_type
                """).first(),
                let source = SessionSource(rawValue: try row.decode(column: "source", as: String.self))
            else { return nil }
            return RedeemedTAN(source: source, teleTANType: try row.decode(column: "teletan_type", as: String?.self).flatMap(TeleTANType.init(rawValue:)))
        }
    }
}
