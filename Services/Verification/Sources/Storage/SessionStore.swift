import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// A registration: what the app's registration token stands for.
public struct AppSession: Sendable, Equatable {
    public let source: SessionSource
    public let hashedGUID: String?
    public let dobHash: String?
    public let teleTANType: TeleTANType?
    public let createdAt: Int64
}

public enum RegistrationOutcome: Sendable, Equatable {
    case registered
    /// The GUID, DOB hash or teleTAN was registered before (or the teleTAN is unknown, expired or used).
    case refused
}

/// Queries on `app_sessions`, `used_keys` and the redemption of teleTANs.
public struct SessionStore: Sendable {
    /// Session reads out at once; reads that queue behind them go together in one query (`RequestBatcher`).
    static let readSlots = 2
    static let readBatch = 100

    let database: Database
    private let reads: RequestBatcher<String, AppSession?>

    public init(database: Database) {
        self.database = database
        self.reads = RequestBatcher(slots: Self.readSlots, maxBatch: Self.readBatch) { tokenHashes in
            try await Self.sessions(tokenHashes: tokenHashes, in: database)
        }
    }

    /// Registers a hashed GUID (and DOB hash) under a new registration token, once ever per key.
    public func registerGUID(_ hashedGUID: String, dobHash: String?, tokenHash: String, now: Date) async throws -> RegistrationOutcome {
        struct AlreadyUsed: Error {}
        let timestamp = now.epochSeconds
        do {
            try await database.transaction { connection in
                for key in [hashedGUID, dobHash].compactMap({ $0 }) {
                    let inserted = try await connection.raw("""
                        INSERT INTO used_keys (key_hash, used_at) VALUES (\(bind: key), \(bind: timestamp))
                        ON CONFLICT (key_hash) DO NOTHING RETURNING key_hash
                        """).all()
                    if inserted.isEmpty { throw AlreadyUsed() }
                }
                try await connection.raw("""
                    INSERT INTO app_sessions (registration_token_hash, source, hashed_guid, hashed_guid_dob, teletan_type, created_at)
                    VALUES (\(bind: tokenHash), \(bind: SessionSource.guid.rawValue), \(bind: hashedGUID), \(bind: dobHash), NULL, \(bind: timestamp))
                    """).run()
            }
            return .registered
        } catch is AlreadyUsed {
            return .refused
        }
    }

    /// Redeems a valid teleTAN and registers a session of its type, atomically: of concurrent tries one wins.
    /// `candidates` are the forms the teleTAN may be stored in (one per configured key, `TypedSecretHasher`); a row
    /// matches only under the key it names.
    public func registerTeleTAN(candidates: [KeyedSecretHash], tokenHash: String, now: Date) async throws -> RegistrationOutcome {
        struct NotRedeemable: Error {}
        let timestamp = now.epochSeconds
        var update: SQLQueryString = "UPDATE teletans SET redeemed_at = \(bind: timestamp) WHERE redeemed_at IS NULL AND valid_until > \(bind: timestamp) AND ("
        for (offset, candidate) in candidates.enumerated() {
            update.appendLiteral(offset == 0 ? "(" : " OR (")
            update.appendLiteral("hash_key_id = ")
            update.appendInterpolation(bind: candidate.keyID)
            update.appendLiteral(" AND teletan_hash = ")
            update.appendInterpolation(bind: candidate.hash)
            update.appendLiteral(")")
        }
        update.appendLiteral(") RETURNING type, teletan_hash")
        let redeem = update
        do {
            try await database.transaction { connection in
                let row = try await connection.raw(redeem).first()
                guard let row, let type = TeleTANType(rawValue: try row.decode(column: "type", as: String.self)) else { throw NotRedeemable() }
                let teleTANHash = try row.decode(column: "teletan_hash", as: String.self)
                try await connection.raw("""
                    INSERT INTO used_keys (key_hash, used_at) VALUES (\(bind: teleTANHash), \(bind: timestamp))
                    ON CONFLICT (key_hash) DO NOTHING
                    """).run()
                try await connection.raw("""
                    INSERT INTO app_sessions (registration_token_hash, source, hashed_guid, hashed_guid_dob, teletan_type, created_at)
                    VALUES (\(bind: tokenHash), \(bind: SessionSource.teleTAN.rawValue), NULL, NULL, \(bind: type.rawValue), \(bind: timestamp))
                    """).run()
            }
            return .registered
        } catch is NotRedeemable {
            return .refused
        }
    }

    /// The session of a registration token (by its hash), or nil. Polls and TAN requests call this concurrently;
    /// the reads that arrive while `readSlots` others are out go together in one query.
    public func session(tokenHash: String) async throws -> AppSession? {
        try await reads.value(for: tokenHash)
    }

    /// PostgreSQL's form of a read batch: one array of hashes, so one prepared statement serves every size.
    private enum SessionRead: PreparedStatement {
        static let columns = "registration_token_hash, source, hashed_guid, hashed_guid_dob, teletan_type, created_at"
        static let sql = "SELECT \(columns) FROM app_sessions WHERE registration_token_hash = ANY($1::TEXT[])"
    }

    /// One query for the sessions of `tokenHashes`, answered in their order.
    static func sessions(tokenHashes: [String], in database: Database) async throws -> [AppSession?] {
        let unique = Array(Set(tokenHashes))
        let found: [String: AppSession] = try await database.withConnection { connection in
            let rows = try await connection.execute(
                SessionRead.self, binds: [unique],
                otherwise: "SELECT \(unsafeRaw: SessionRead.columns) FROM app_sessions WHERE registration_token_hash IN \(bindList: unique)"
            )
            var sessions: [String: AppSession] = [:]
            for row in rows {
                guard let source = SessionSource(rawValue: try row.decode(column: "source", as: String.self)) else { continue }
                sessions[try row.decode(column: "registration_token_hash", as: String.self)] = AppSession(
                    source: source,
                    hashedGUID: try row.decode(column: "hashed_guid", as: String?.self),
                    dobHash: try row.decode(column: "hashed_guid_dob", as: String?.self),
                    teleTANType: try row.decode(column: "teletan_type", as: String?.self).flatMap(TeleTANType.init(rawValue:)),
                    createdAt: try row.decode(column: "created_at", as: Int64.self)
                )
            }
            return sessions
        }
        return tokenHashes.map { found[$0] }
    }
}
