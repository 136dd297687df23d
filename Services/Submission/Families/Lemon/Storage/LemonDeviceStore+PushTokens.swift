import ExposureCore
import Foundation
import SQLKit
import SubmissionDomain

/// Push tokens: sealed to their device, found by their keyed hash (`LemonPushTokenSealer`), never logged.
extension LemonDeviceStore {
    /// Gives the device this push token. Tokens are unique (seed); one another device holds moves to this one rather
    /// than being refused, so that no answer tells whether a token is registered (an oracle to anyone who holds one),
    /// and an app reinstalled on the same phone, which may get the same token again, keeps its notifications.
    func setPushToken(id: String, _ token: String) async throws {
        try await database.transaction { connection in
            try await movePushToken(token, to: id, on: connection)
        }
    }

    /// Within a transaction: takes the token from whichever other device holds it, then gives it to `id`.
    func movePushToken(_ token: String, to id: String, on connection: any SQLDatabase) async throws {
        let index = pushTokens.index(token)
        let sealed = Data(try pushTokens.seal(token, deviceID: id))
        try await connection.raw("""
            UPDATE lemon_devices SET push_token_index = NULL, sealed_push_token = NULL
            WHERE push_token_index = \(bind: index) AND id <> \(bind: id)
            """).run()
        try await connection.raw("""
            UPDATE lemon_devices SET push_token_index = \(bind: index), sealed_push_token = \(bind: sealed) WHERE id = \(bind: id)
            """).run()
    }

    func clearPushToken(id: String) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE lemon_devices SET push_token_index = NULL, sealed_push_token = NULL, push_token = NULL WHERE id = \(bind: id)
                """).run()
        }
    }

    /// The device's push token, opened (what a sender of notifications reads); nil when it has none, or when the
    /// sealed token was not sealed for this device.
    func pushToken(id: String) async throws -> String? {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("SELECT sealed_push_token FROM lemon_devices WHERE id = \(bind: id)").first(),
                  let sealed = try row.decode(column: "sealed_push_token", as: Data?.self)
            else { return nil }
            return pushTokens.open(Array(sealed), deviceID: id)
        }
    }

    /// Seals the push tokens rows still hold in the clear (stored before migration 13) and empties `push_token`; run
    /// by every replica at start-up, harmless when another does it at the same time. Returns how many it sealed.
    @discardableResult
    func sealStoredPushTokens() async throws -> Int {
        try await database.withConnection { connection in
            let rows = try await connection.raw("SELECT id, push_token FROM lemon_devices WHERE push_token IS NOT NULL").all()
            var sealed = 0
            for row in rows {
                let id = try row.decode(column: "id", as: String.self)
                let token = try row.decode(column: "push_token", as: String.self)
                let updated = try await connection.raw("""
                    UPDATE lemon_devices SET push_token_index = \(bind: pushTokens.index(token)),
                        sealed_push_token = \(bind: Data(try pushTokens.seal(token, deviceID: id))), push_token = NULL
                    WHERE id = \(bind: id) AND push_token = \(bind: token) RETURNING id
                    """).all()
                sealed += updated.count
            }
            return sealed
        }
    }
}
