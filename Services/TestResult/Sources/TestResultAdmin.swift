import ExposureCore
import Foundation

/// The operator's commands for lab credentials: `labs add <labId>`, `labs list`, `labs revoke <labId>`.
public enum TestResultAdmin {
    /// Runs a `labs` subcommand and returns what to print.
    public static func labs(_ words: [String], configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
        let database = try await Database.open(configuration.common, migrator: TestResultMigrations.migrator, environment: environment)
        defer { Task { await database.shutdown() } }
        let store = LabCredentialStore(database: database)
        let now = environment.clock.now()
        switch (words.first, words.count) {
        case ("add", 2):
            let labID = words[1]
            guard LabAPIKey.isValidLabID(labID) else { throw UsageError("a lab id has 1 to 64 letters, digits, '-', '_' or '.'") }
            let key = try await addLab(labID, store: store, random: environment.random, now: now)
            return """
                Lab \(labID) can now post results with the header
                  Authorization: Bearer \(key)
                This key is shown only once; store it in the lab system's secret store.
                """
        case ("list", 1):
            let rows = try await store.list()
            guard !rows.isEmpty else { return "No lab credentials." }
            let lines = rows.map { row in
                let state = row.revokedAt.map { "revoked \(Date(timeIntervalSince1970: TimeInterval($0)).formatted(.iso8601))" } ?? "active"
                return "\(row.labID)\tkey \(row.fingerprint)…\tcreated \(Date(timeIntervalSince1970: TimeInterval(row.createdAt)).formatted(.iso8601))\t\(state)"
            }
            return (["LAB\tKEY\tCREATED\tSTATE"] + lines).joined(separator: "\n")
        case ("revoke", 2):
            let count = try await store.revoke(labID: words[1], now: now)
            return count == 0 ? "No active key for lab \(words[1])." : "Revoked \(count) key(s) of lab \(words[1])."
        default:
            throw UsageError("usage: labs add <labId> | labs list | labs revoke <labId>")
        }
    }

    /// Creates a credential and returns its API key (shown once; only its hash is stored).
    public static func addLab(_ labID: String, store: LabCredentialStore, random: any RandomSource, now: Date) async throws -> String {
        let key = LabAPIKey.generate(using: random)
        try await store.add(labID: labID, keyHash: LabAPIKey.hash(key), now: now)
        return key
    }

    /// Creates a credential in the configured database (used by the all-in-one launcher on first start).
    public static func addLab(_ labID: String, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
        let database = try await Database.open(configuration.common, migrator: TestResultMigrations.migrator, environment: environment)
        do {
            let key = try await addLab(labID, store: LabCredentialStore(database: database), random: environment.random, now: environment.clock.now())
            await database.shutdown()
            return key
        } catch {
            await database.shutdown()
            throw error
        }
    }
}
