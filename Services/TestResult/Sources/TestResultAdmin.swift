import ExposureCore
import Foundation
import NIOSSL
import TestResultDomain

/// The operator's work on lab credentials, behind `testresult-service labs add|add-cert|list|revoke` (the command
/// types are in Commands/). Each returns what the command prints.
public enum TestResultAdmin {
    /// `labs …` given as words (`["add", "lab-1"]`), parsed as the executable parses them, against the configured
    /// database.
    public static func labs(_ words: [String], configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
        let action = try LabsCommand.parse(words: words, as: (any LabsAction).self)
        return try await withStore(configuration, environment: environment) { try await action.output(store: $0, configuration: configuration, environment: environment) }
    }

    /// Opens the configured database for one command and closes it again.
    static func withStore<Output>(
        _ configuration: TestResultConfiguration,
        environment: ServiceEnvironment,
        _ body: (LabCredentialStore) async throws -> Output
    ) async throws -> Output {
        try await Database.withOpened(configuration.common, migrator: TestResultMigrations.migrator, environment: environment) { database in
            try await body(LabCredentialStore(database: database))
        }
    }

    static func validLabID(_ labID: String) throws -> String {
        guard LabAPIKey.isValidLabID(labID) else { throw UsageError("a lab id has 1 to 64 letters, digits, '-', '_' or '.'") }
        return labID
    }

    static func add(_ labID: String, store: LabCredentialStore, environment: ServiceEnvironment) async throws -> String {
        let key = try await addLab(try validLabID(labID), store: store, random: environment.random, now: environment.clock.now())
        return """
            Lab \(labID) can now post results with the header
              Authorization: Bearer \(key)
            This key is shown only once; store it in the lab system's secret store.
            """
    }

    static func addCertificate(_ labID: String, _ certificate: String, store: LabCredentialStore, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
        let labID = try validLabID(labID)
        let fingerprint = try certificateFingerprint(certificate)
        try await store.add(labID: labID, keyHash: fingerprint, kind: .certificate, now: environment.clock.now())
        let registered = "Lab \(labID) can now post results over TLS with the client certificate \(fingerprint)."
        guard configuration.labTLS == nil else { return registered }
        return registered + """

            This configuration has no TLS_CERT_FILE and TLS_KEY_FILE: the lab listener speaks plain HTTP and \
            accepts API keys only, until it is given a certificate and key.
            """
    }

    static func list(store: LabCredentialStore, output: ListOutputOptions) async throws -> String {
        let rows = try await store.list()
        return try output.render(LabCredentialList(credentials: rows.map(LabCredentialList.Credential.init))) {
            guard !rows.isEmpty else { return "No lab credentials." }
            let lines = rows.map { row in
                let credential = LabCredentialList.Credential(row)
                let state = row.revokedAt.map { "revoked \(Date.iso8601($0))" } ?? "active"
                return "\(row.labID)\t\(credential.kind) \(row.fingerprint)…\tcreated \(Date.iso8601(row.createdAt))\t\(state)\t"
                    + (credential.lastUsed.value ?? "never")
            }
            return (["LAB\tCREDENTIAL\tCREATED\tSTATE\tLAST USED"] + lines).joined(separator: "\n")
        }
    }

    /// Revokes one credential, named by the fingerprint `labs list` shows: the second step of a rotation, once the
    /// lab uses its new key (docs/operations.md, "Rotating a lab's credential").
    static func revoke(_ labID: String, credential: String, store: LabCredentialStore, environment: ServiceEnvironment) async throws -> String {
        let fingerprint = credential.replacingOccurrences(of: "…", with: "").lowercased()
        guard fingerprint.count >= 8, fingerprint.count <= 64, fingerprint.allSatisfy(\.isHexDigit) else {
            throw UsageError("--credential takes the fingerprint `labs list` shows: 8 to 64 hex characters")
        }
        switch try await store.revoke(labID: labID, fingerprint: fingerprint, now: environment.clock.now()) {
        case 0: throw UsageError("Lab \(labID) has no active credential \(fingerprint)")
        case 1: return "Revoked credential \(fingerprint) of lab \(labID); its other credentials stay active."
        default: throw UsageError("\(fingerprint) names several credentials of lab \(labID): give more of the fingerprint")
        }
    }

    static func revoke(_ labID: String, store: LabCredentialStore, environment: ServiceEnvironment) async throws -> String {
        let count = try await store.revoke(labID: labID, now: environment.clock.now())
        return count == 0 ? "No active key for lab \(labID)." : "Revoked \(count) key(s) of lab \(labID)."
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
        try await store.createAPIKey(labID: labID, random: random, now: now).key
    }

    /// Creates a credential in the configured database (used by the all-in-one launcher on first start).
    public static func addLab(_ labID: String, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
        try await Database.withOpened(configuration.common, migrator: TestResultMigrations.migrator, environment: environment) { database in
            try await addLab(labID, store: LabCredentialStore(database: database), random: environment.random, now: environment.clock.now())
        }
    }
}
