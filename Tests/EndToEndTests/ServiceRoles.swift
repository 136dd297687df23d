import ExposureCore
import ExposureTestSupport
import Foundation

/// A PostgreSQL server laid out as docs/operations.md, "Database roles", says: deploy/postgres-init.sql run on it,
/// each service's database migrated by the migration role, the services connecting as their own roles.
enum ServiceRoles {
    static let services = ["verification", "testresult", "submission", "portal"]
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs deploy/postgres-init.sql on `server` with psql (the passwords are not checked: the server trusts).
    static func create(on server: ThrowawayPostgres) async throws {
        _ = try await psql(server, user: server.user, database: "postgres", [
            "-v", "migration_password=m", "-v", "verification_password=v", "-v", "testresult_password=t",
            "-v", "submission_password=s", "-v", "portal_password=p",
            "-f", repository.appendingPathComponent("deploy/postgres-init.sql").path,
        ])
    }

    /// `<service> migrate` for every service, as the migration role; what each printed.
    @discardableResult
    static func migrate(on server: ThrowawayPostgres) async throws -> [String: ServiceProcess.Outcome] {
        var outcomes: [String: ServiceProcess.Outcome] = [:]
        for service in services {
            let run = try await ServiceProcess.capture("\(service)-service", ["migrate"], environment: [
                // The database and nothing else: a migration job is given none of a service's secrets.
                "DATABASE_URL": try url(server, role: "exposure_migration", database: service).connectionString,
            ], timeout: .seconds(60))
            guard run.status == 0 else { throw ExternalTool.Failed(description: "\(service) migrate: \(run.standardError)") }
            outcomes[service] = run
        }
        return outcomes
    }

    /// Each service's database on `server` as its own role: the `databases` of an `EndToEndStack`.
    static func serviceDatabases(on server: ThrowawayPostgres) throws -> [String: DatabaseURL] {
        var databases: [String: DatabaseURL] = [:]
        for service in services { databases[service] = try url(server, role: "\(service)_service", database: service) }
        return databases
    }

    static func url(_ server: ThrowawayPostgres, role: String, database: String) throws -> DatabaseURL {
        try DatabaseURL(parsing: "postgres://\(role)@127.0.0.1:\(server.port)/\(database)", variable: "DATABASE_URL")
    }

    /// psql as `user` on `database` of `server`, stopping at the first error; what it printed.
    static func psql(_ server: ThrowawayPostgres, user: String, database: String, _ arguments: [String]) async throws -> String {
        let output = try await ExternalTool.run(
            ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(server.port)", "-U", user, "-d", database] + arguments
        )
        return String(decoding: output, as: UTF8.self)
    }
}
