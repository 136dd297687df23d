import ExposureCore
import Foundation
import SQLKit
import SubmissionDomain

extension CovidShieldKeyPairStore {
    /// The `service_secrets` row where versions before 0.2 kept a generated key-encryption key when the operator set
    /// none: in the same database as the pairs it sealed, so that a copy of the database opened every pair.
    static let generatedKeyEncryptionKeyRow = "covidshield_key_encryption_key"

    /// Moves every pair sealed under a generated key kept in the database to the operator's key, and deletes the
    /// generated key, in one transaction: afterwards no copy of the database opens a pair. Pairs that do not open
    /// under the generated key (sealed under the operator's already) are left as they are. Returns how many moved.
    func resealPairsUnderConfiguredKey(_ configured: SecretSealer) async throws -> Int {
        let name = Self.generatedKeyEncryptionKeyRow
        return try await database.transaction { connection in
            guard let row = try await connection.raw("SELECT value FROM service_secrets WHERE name = \(bind: name)").first() else {
                return 0
            }
            let text = try row.decode(column: "value", as: String.self)
            guard let key = [UInt8](hex: text), key.count == SecretSealer.keyBytes else {
                throw GeneratedKeyUnreadable()
            }
            let generated = SecretSealer(key: key)
            var moved = 0
            for pair in try await connection.raw("SELECT server_public_key, sealed_secret_key FROM covidshield_key_pairs").all() {
                let publicKey = [UInt8](try pair.decode(column: "server_public_key", as: Data.self))
                let sealed = [UInt8](try pair.decode(column: "sealed_secret_key", as: Data.self))
                guard let secret = try? generated.open(sealed, belongingTo: publicKey) else { continue }
                let resealed = try configured.seal(secret, belongingTo: publicKey)
                try await connection.raw("""
                    UPDATE covidshield_key_pairs SET sealed_secret_key = \(bind: Data(resealed)) WHERE server_public_key = \(bind: Data(publicKey))
                    """).run()
                moved += 1
            }
            try await connection.raw("DELETE FROM service_secrets WHERE name = \(bind: name)").run()
            return moved
        }
    }
}

/// The generated key in `service_secrets` is not 64 hex digits: nothing was moved.
struct GeneratedKeyUnreadable: Error, CustomStringConvertible {
    var description: String { "the generated CovidShield key-encryption key in service_secrets cannot be read: nothing was moved" }
}
