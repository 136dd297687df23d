import ExposureCore
import Foundation
import SQLKit
import SubmissionDomain

/// `lemon_devices`: one row per registered device, found by the keyed hash of its AppId or by its id (the JWT's
/// subject). Push tokens are stored as sent (the server must be able to push) and never logged. Payload session keys
/// are stored sealed and bound to the row (`LemonSessionKeySealer`).
struct LemonDeviceStore: Sendable {
    let database: Database
    let sealer: LemonSessionKeySealer

    enum Registration: Sendable, Equatable {
        case registered
        case appIdTaken
        case pushTokenTaken
    }

    /// Inserts a new device unless its AppId (or push token) is already held.
    func register(
        id: String, appId: KeyedSecretHash, publicKey: Data, operatingSystem: String, language: String?, pushToken: String?,
        seedDigest: String, now: Date
    ) async throws -> Registration {
        try await database.withConnection { connection in
            let inserted = try await connection.raw("""
                INSERT INTO lemon_devices (id, app_id_hash, app_id_key, public_key, operating_system, language, push_token, active,
                    failed_attempts, locked_until, last_seed_digest, registered_at)
                VALUES (\(bind: id), \(bind: appId.hash), \(bind: appId.keyID), \(bind: publicKey), \(bind: operatingSystem), \(bind: language),
                    \(bind: pushToken), \(bind: true), 0, NULL, \(bind: seedDigest), \(bind: now.epochSeconds))
                ON CONFLICT DO NOTHING RETURNING id
                """).all()
            if !inserted.isEmpty { return .registered }
            let holder = try await connection.raw("SELECT id FROM lemon_devices WHERE app_id_hash = \(bind: appId.hash)").first()
            return holder == nil ? .pushTokenTaken : .appIdTaken
        }
    }

    /// The device whose AppId hashes to one of `candidates` (one per configured key).
    func find(appId candidates: [KeyedSecretHash]) async throws -> LemonDeviceRecord? {
        try await database.withConnection { connection in
            for candidate in candidates {
                let row = try await connection.raw("""
                    SELECT id, public_key, active, failed_attempts, locked_until, last_seed_digest FROM lemon_devices
                    WHERE app_id_hash = \(bind: candidate.hash) AND app_id_key = \(bind: candidate.keyID)
                    """).first()
                if let row {
                    return LemonDeviceRecord(
                        id: try row.decode(column: "id", as: String.self),
                        publicKey: try row.decode(column: "public_key", as: Data.self),
                        active: try row.decode(column: "active", as: Bool.self),
                        lockout: LemonLockout(
                            failures: try row.decode(column: "failed_attempts", as: Int.self),
                            lockedUntil: try row.decode(column: "locked_until", as: Int64?.self)
                        ),
                        lastSeedDigest: try row.decode(column: "last_seed_digest", as: String?.self)
                    )
                }
            }
            return nil
        }
    }

    /// Counts a failed authentication in one statement, so that concurrent failures all count: the third since the
    /// last success or lock locks the device (`LemonLockout`). A device already locked is left as it is.
    func recordFailure(id: String, now: Date) async throws {
        let limit = LemonLockout.maxFailures
        let until = now.epochSeconds + Int64(LemonLockout.duration)
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE lemon_devices SET
                    locked_until = CASE WHEN failed_attempts + 1 >= \(bind: limit) THEN \(bind: until) ELSE locked_until END,
                    failed_attempts = CASE WHEN failed_attempts + 1 >= \(bind: limit) THEN 0 ELSE failed_attempts + 1 END
                WHERE id = \(bind: id) AND (locked_until IS NULL OR locked_until <= \(bind: now.epochSeconds))
                """).run()
        }
    }

    /// Records a successful authentication: the count starts again, and the seed is remembered so that the same
    /// signed request is not accepted twice. False when another request with the same seed got there first.
    func recordSuccess(id: String, seedDigest: String, language: String?) async throws -> Bool {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE lemon_devices SET failed_attempts = 0, last_seed_digest = \(bind: seedDigest),
                    language = COALESCE(\(bind: language), language)
                WHERE id = \(bind: id) AND (last_seed_digest IS NULL OR last_seed_digest <> \(bind: seedDigest))
                RETURNING id
                """).all().count == 1
        }
    }

    /// Whether the device of a token still exists, and the keys of its latest session (payload encryption): nil when
    /// none are kept, or when the sealed keys in the row were not sealed for this device (a row copied or swapped).
    func session(id: String) async throws -> (exists: Bool, keys: [UInt8]?) {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("SELECT session_keys FROM lemon_devices WHERE id = \(bind: id)").first() else {
                return (false, nil)
            }
            let sealed = try row.decode(column: "session_keys", as: Data?.self)
            return (true, sealed.flatMap { sealer.open(Array($0), deviceID: id) })
        }
    }

    /// Keeps the payload keys of the session just opened, sealed to the device (they replace the last session's).
    func setSessionKeys(id: String, _ keys: [UInt8]) async throws {
        let sealed = try sealer.seal(keys, deviceID: id)
        try await database.withConnection { connection in
            try await connection.raw("UPDATE lemon_devices SET session_keys = \(bind: Data(sealed)) WHERE id = \(bind: id)").run()
        }
    }

    func delete(id: String) async throws {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM lemon_devices WHERE id = \(bind: id)").run()
        }
    }

    func setActive(id: String, _ active: Bool) async throws {
        try await database.withConnection { connection in
            try await connection.raw("UPDATE lemon_devices SET active = \(bind: active) WHERE id = \(bind: id)").run()
        }
    }

    /// Sets the device's push token; false when another device holds it (tokens are unique).
    func setPushToken(id: String, _ token: String) async throws -> Bool {
        try await database.withConnection { connection in
            if let holder = try await connection.raw("SELECT id FROM lemon_devices WHERE push_token = \(bind: token)").first() {
                return try holder.decode(column: "id", as: String.self) == id
            }
            do {
                try await connection.raw("UPDATE lemon_devices SET push_token = \(bind: token) WHERE id = \(bind: id)").run()
                return true
            } catch {
                // Another device took it between the two statements: the unique index decided.
                if try await connection.raw("SELECT id FROM lemon_devices WHERE push_token = \(bind: token)").first() != nil { return false }
                throw error
            }
        }
    }

    func clearPushToken(id: String) async throws {
        try await database.withConnection { connection in
            try await connection.raw("UPDATE lemon_devices SET push_token = NULL WHERE id = \(bind: id)").run()
        }
    }
}
