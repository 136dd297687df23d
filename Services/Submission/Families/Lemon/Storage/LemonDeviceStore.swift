import ExposureCore
import Foundation
import SQLKit
import SubmissionDomain

/// `lemon_devices`: one row per registered device, found by the keyed hash of its AppId or by its id (the JWT's
/// subject). Payload session keys and push tokens are stored sealed and bound to the row (`LemonSessionKeySealer`,
/// `LemonPushTokenSealer`); push tokens are found by their keyed hash. `lemon_accepted_seeds` keeps the seeds of the
/// authentications each device was accepted with, so that no signed request is accepted twice.
struct LemonDeviceStore: Sendable {
    let database: Database
    let sealer: LemonSessionKeySealer
    let pushTokens: LemonPushTokenSealer

    enum Registration: Sendable, Equatable {
        case registered
        case appIdTaken
    }

    /// A signed device request: the SHA-256 of its seed, and the time it was signed (unix seconds).
    struct SignedSeed: Sendable {
        let digest: String
        let signedAt: Int64
    }

    /// Inserts a new device unless its AppId is already held. A push token another device holds moves to the new one
    /// (`movePushToken`).
    func register(
        id: String, appId: KeyedSecretHash, publicKey: Data, operatingSystem: String, language: String?, pushToken: String?,
        seed: SignedSeed, now: Date
    ) async throws -> Registration {
        try await database.transaction { connection in
            let inserted = try await connection.raw("""
                INSERT INTO lemon_devices (id, app_id_hash, app_id_key, public_key, operating_system, language, active,
                    failed_attempts, locked_until, registered_at)
                VALUES (\(bind: id), \(bind: appId.hash), \(bind: appId.keyID), \(bind: publicKey), \(bind: operatingSystem), \(bind: language),
                    \(bind: true), 0, NULL, \(bind: now.epochSeconds))
                ON CONFLICT DO NOTHING RETURNING id
                """).all()
            guard !inserted.isEmpty else { return .appIdTaken }
            try await Self.insert(seed, device: id, on: connection)
            if let pushToken { try await movePushToken(pushToken, to: id, on: connection) }
            return .registered
        }
    }

    /// The device whose AppId hashes to one of `candidates` (one per configured key).
    func find(appId candidates: [KeyedSecretHash]) async throws -> LemonDeviceRecord? {
        try await database.withConnection { connection in
            for candidate in candidates {
                let row = try await connection.raw("""
                    SELECT id, public_key, active, failed_attempts, locked_until FROM lemon_devices
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
                        )
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

    /// Records a successful authentication: the count starts again, and its seed is remembered, so that the same
    /// signed request is never accepted again, whatever other requests came in between. Seeds signed longer ago than
    /// twice the signature window are forgotten: a request that old is refused by its time. False when the seed was
    /// accepted before (a replay, or another request with the same seed got there first).
    func recordSuccess(id: String, seed: SignedSeed, language: String?, now: Date) async throws -> Bool {
        let forgetBefore = now.epochSeconds - 2 * Int64(LemonDeviceRules.signatureWindow)
        return try await database.transaction { connection in
            try await connection.raw("""
                DELETE FROM lemon_accepted_seeds WHERE device_id = \(bind: id) AND signed_at < \(bind: forgetBefore)
                """).run()
            guard try await Self.insert(seed, device: id, on: connection) else { return false }
            try await connection.raw("""
                UPDATE lemon_devices SET failed_attempts = 0, language = COALESCE(\(bind: language), language) WHERE id = \(bind: id)
                """).run()
            return true
        }
    }

    /// Remembers an accepted seed; false when the device was accepted with it before.
    @discardableResult
    private static func insert(_ seed: SignedSeed, device id: String, on connection: any SQLDatabase) async throws -> Bool {
        try await connection.raw("""
            INSERT INTO lemon_accepted_seeds (device_id, seed_digest, signed_at) VALUES (\(bind: id), \(bind: seed.digest), \(bind: seed.signedAt))
            ON CONFLICT DO NOTHING RETURNING device_id
            """).all().count == 1
    }

    /// What a token's request needs of its device: whether it still exists, whether it is active, and the keys of its
    /// latest session (payload encryption): nil when none are kept, or when the sealed keys in the row were not sealed
    /// for this device (a row copied or swapped).
    func session(id: String) async throws -> (exists: Bool, active: Bool, keys: [UInt8]?) {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("SELECT active, session_keys FROM lemon_devices WHERE id = \(bind: id)").first() else {
                return (false, false, nil)
            }
            let sealed = try row.decode(column: "session_keys", as: Data?.self)
            return (true, try row.decode(column: "active", as: Bool.self), sealed.flatMap { sealer.open(Array($0), deviceID: id) })
        }
    }

    /// Keeps the payload keys of the session just opened, sealed to the device (they replace the last session's).
    func setSessionKeys(id: String, _ keys: [UInt8]) async throws {
        let sealed = try sealer.seal(keys, deviceID: id)
        try await database.withConnection { connection in
            try await connection.raw("UPDATE lemon_devices SET session_keys = \(bind: Data(sealed)) WHERE id = \(bind: id)").run()
        }
    }

    /// Removes the device and the seeds it was accepted with.
    func delete(id: String) async throws {
        try await database.transaction { connection in
            try await connection.raw("DELETE FROM lemon_accepted_seeds WHERE device_id = \(bind: id)").run()
            try await connection.raw("DELETE FROM lemon_devices WHERE id = \(bind: id)").run()
        }
    }

    func setActive(id: String, _ active: Bool) async throws {
        try await database.withConnection { connection in
            try await connection.raw("UPDATE lemon_devices SET active = \(bind: active) WHERE id = \(bind: id)").run()
        }
    }
}
