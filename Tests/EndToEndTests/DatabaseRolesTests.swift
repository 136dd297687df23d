import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// deploy/postgres-init.sql as an operator runs it: each service's database migrated by the migration role with
/// `<service> migrate`, then every service serving the whole story as its own role, which can read and write its
/// tables and nothing more.
@Suite(.serialized) struct DatabaseRolesTests {
    static let services = ["verification", "testresult", "submission", "portal"]
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs deploy/postgres-init.sql on `server`, as the runbook says (passwords are not checked: the server trusts).
    static func createRoles(on server: ThrowawayPostgres) throws {
        _ = try ExternalTool.run([
            "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(server.port)", "-U", server.user, "-d", "postgres",
            "-v", "migration_password=m", "-v", "verification_password=v", "-v", "testresult_password=t",
            "-v", "submission_password=s", "-v", "portal_password=p",
            "-f", repository.appendingPathComponent("deploy/postgres-init.sql").path,
        ])
    }

    static func url(_ server: ThrowawayPostgres, role: String, database: String) throws -> DatabaseURL {
        try DatabaseURL(parsing: "postgres://\(role)@127.0.0.1:\(server.port)/\(database)", variable: "DATABASE_URL")
    }

    /// One statement as `role`, through psql: the error PostgreSQL answered, or nil. (psql reports a refused
    /// connection at once, where a service's pool retries it until its deadline.)
    static func attempt(_ server: ThrowawayPostgres, role: String, database: String, _ statement: String) -> String? {
        do {
            _ = try ExternalTool.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(server.port)", "-U", role, "-d", database, "-c", statement])
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func everyServiceRunsAsItsOwnRole(kind: TestDatabase) async throws {
        try await ThrowawayPostgres.withServer { server in
            try Self.createRoles(on: server)
            for service in Self.services {
                let migrate = try ServiceProcess.capture("\(service)-service", ["migrate"], environment: [
                    "DATABASE_URL": try Self.url(server, role: "exposure_migration", database: service).connectionString,
                    "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys,
                ], timeout: .seconds(60))
                try #require(migrate.status == 0, "\(service) migrate: \(migrate.standardError)")
            }

            var databases: [String: DatabaseURL] = [:]
            for service in Self.services { databases[service] = try Self.url(server, role: "\(service)_service", database: service) }
            // The stack's administration commands (lab key, officer) and the four services, each as its own role;
            // submission's distribution runs in it every 2 s.
            try await EndToEndStack.run(databases: databases) { stack in
                let demo = try ServiceProcess.run("exposure-suite", ["demo"], environment: stack.demoEnvironment)
                #expect(demo.status == 0, "\(demo.output)\n\(stack.logs)")
                #expect(demo.output.contains("Every step held."))
                #expect(!stack.logs.contains("permission denied"), "\(stack.logs)")
            }

            // A service role can change rows, not the schema, and cannot reach another service's database.
            let create = Self.attempt(server, role: "verification_service", database: "verification", "CREATE TABLE intruder (x INT)")
            #expect(create?.contains("permission denied for schema public") == true, "\(create ?? "allowed")")
            let drop = Self.attempt(server, role: "submission_service", database: "submission", "DROP TABLE diagnosis_keys")
            #expect(drop?.contains("must be owner") == true, "\(drop ?? "allowed")")
            let foreign = Self.attempt(server, role: "verification_service", database: "testresult", "SELECT 1")
            #expect(foreign?.contains("permission denied for database") == true, "\(foreign ?? "allowed")")
            let write = Self.attempt(server, role: "testresult_service", database: "testresult", "DELETE FROM schema_migrations WHERE false")
            #expect(write == nil, "\(write ?? "")")
        }
    }

    /// A service role meets a schema change with a clear error, and `migrate` with the migration role is the way.
    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func aServiceRoleCannotMigrate(kind: TestDatabase) async throws {
        try await ThrowawayPostgres.withServer { server in
            try Self.createRoles(on: server)
            let run = try ServiceProcess.capture("testresult-service", ["migrate"], environment: [
                "DATABASE_URL": try Self.url(server, role: "testresult_service", database: "testresult").connectionString,
            ], timeout: .seconds(60))
            #expect(run.status == 1)
            #expect(run.standardError.contains("permission denied for schema public"), "\(run.standardError)")
        }
    }
}
