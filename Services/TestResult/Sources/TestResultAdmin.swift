import ExposureCore
import Foundation
import NIOSSL

/// The operator's commands for lab credentials: `labs add <labId>`, `labs list`, `labs revoke <labId>`.
public enum TestResultAdmin {
    /// Runs a `labs` subcommand and returns what to print.
    public static func labs(_ words: [String], configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
        enum Action { case add(String), addCertificate(String, String), list, revoke(String) }
        let action: Action
        switch (words.first, words.count) {
        case ("add", 2):
            guard LabAPIKey.isValidLabID(words[1]) else { throw UsageError("a lab id has 1 to 64 letters, digits, '-', '_' or '.'") }
            action = .add(words[1])
        case ("add-cert", 3):
            guard LabAPIKey.isValidLabID(words[1]) else { throw UsageError("a lab id has 1 to 64 letters, digits, '-', '_' or '.'") }
            action = .addCertificate(words[1], try certificateFingerprint(words[2]))
        case ("list", 1): action = .list
        case ("revoke", 2): action = .revoke(words[1])
        default: throw UsageError("usage: labs add <labId> | labs add-cert <labId> <certificate.pem or SHA-256 fingerprint> | labs list | labs revoke <labId>")
        }
        return try await Database.withOpened(configuration.common, migrator: TestResultMigrations.migrator, environment: environment) { database in
            try await run(action, store: LabCredentialStore(database: database), environment: environment)
        }

        func run(_ action: Action, store: LabCredentialStore, environment: ServiceEnvironment) async throws -> String {
            let now = environment.clock.now()
            switch action {
            case .add(let labID):
                let key = try await addLab(labID, store: store, random: environment.random, now: now)
                return """
                    Lab \(labID) can now post results with the header
                      Authorization: Bearer \(key)
                    This key is shown only once; store it in the lab system's secret store.
                    """
            case .addCertificate(let labID, let fingerprint):
                try await store.add(labID: labID, keyHash: fingerprint, kind: .certificate, now: now)
                let registered = "Lab \(labID) can now post results over TLS with the client certificate \(fingerprint)."
                guard configuration.labTLS == nil else { return registered }
                return registered + """

                    This configuration has no TLS_CERT_FILE and TLS_KEY_FILE: the lab listener speaks plain HTTP and \
                    accepts API keys only, until it is given a certificate and key.
                    """
            case .list:
                let rows = try await store.list()
                guard !rows.isEmpty else { return "No lab credentials." }
                let lines = rows.map { row in
                    let state = row.revokedAt.map { "revoked \(iso($0))" } ?? "active"
                    let kind = row.kind == .apiKey ? "key" : "certificate"
                    return "\(row.labID)\t\(kind) \(row.fingerprint)…\tcreated \(iso(row.createdAt))\t\(state)"
                }
                return (["LAB\tCREDENTIAL\tCREATED\tSTATE"] + lines).joined(separator: "\n")
            case .revoke(let labID):
                let count = try await store.revoke(labID: labID, now: now)
                return count == 0 ? "No active key for lab \(labID)." : "Revoked \(count) key(s) of lab \(labID)."
            }
        }

        func iso(_ seconds: Int64) -> String { Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601) }
    }

    /// A certificate's fingerprint from a PEM file, or a fingerprint given as 64 hex characters (colons allowed).
    public static func certificateFingerprint(_ argument: String) throws -> String {
        let hex = argument.replacingOccurrences(of: ":", with: "").lowercased()
        if hex.count == 64, Array<UInt8>(hex: hex) != nil { return hex }
        guard let certificate = try? NIOSSLCertificate.fromPEMFile(argument).first else {
            throw UsageError("\(argument) is neither a PEM certificate file nor a SHA-256 fingerprint")
        }
        return try ListenerTLS.fingerprint(certificate)
    }

    /// Creates a credential and returns its API key (shown once; only its hash is stored).
    public static func addLab(_ labID: String, store: LabCredentialStore, random: any RandomSource, now: Date) async throws -> String {
        let key = LabAPIKey.generate(using: random)
        try await store.add(labID: labID, keyHash: LabAPIKey.hash(key), now: now)
        return key
    }

    /// Creates a credential in the configured database (used by the all-in-one launcher on first start).
    public static func addLab(_ labID: String, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
        try await Database.withOpened(configuration.common, migrator: TestResultMigrations.migrator, environment: environment) { database in
            try await addLab(labID, store: LabCredentialStore(database: database), random: environment.random, now: environment.clock.now())
        }
    }
}
