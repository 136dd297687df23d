import ExposureCore
import SQLKit

/// The secret under which the service derives redemption keys (`RedemptionKeyDeriver`). It lives in the service's own
/// database, so that every replica derives the same key for the same submission; verification never sees it.
struct RedemptionSecretStore: Sendable {
    static let name = "redemption_key"

    let database: Database

    /// The stored secret, created from `random` when there is none yet. Replicas starting together agree on the
    /// first one written.
    func secret(random: any RandomSource) async throws -> [UInt8] {
        let candidate = random.bytes(count: 32).hexString
        return try await database.withConnection { connection in
            try await connection.raw("""
                INSERT INTO service_secrets (name, value) VALUES (\(bind: Self.name), \(bind: candidate)) ON CONFLICT (name) DO NOTHING
                """).run()
            guard let row = try await connection.raw("SELECT value FROM service_secrets WHERE name = \(bind: Self.name)").first() else {
                throw MissingRedemptionSecret()
            }
            return Array(try row.decode(column: "value", as: String.self).utf8)
        }
    }
}

/// The row written a moment before was not there: someone deleted it in between.
struct MissingRedemptionSecret: Error, CustomStringConvertible {
    var description: String { "the \(RedemptionSecretStore.name) secret disappeared from service_secrets while the service started" }
}
