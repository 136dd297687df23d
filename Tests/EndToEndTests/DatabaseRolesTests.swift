import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// deploy/postgres-init.sql as an operator runs it: each service's database migrated by the migration role with
/// `<service> migrate`, then every service serving the whole story as its own role, which can read and write its
/// tables and nothing more.
@Suite(.serialized) struct DatabaseRolesTests {
    /// One statement as `role`, through psql: the error PostgreSQL answered, or nil. (psql reports a refused
    /// connection at once, where a service's pool retries it until its deadline.)
    static func attempt(_ server: ThrowawayPostgres, role: String, database: String, _ statement: String) async -> String? {
        do {
            _ = try await ServiceRoles.psql(server, user: role, database: database, ["-c", statement])
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func everyServiceRunsAsItsOwnRole(kind: TestDatabase) async throws {
        try await ThrowawayPostgres.withServer { server in
            try await ServiceRoles.create(on: server)
            try await ServiceRoles.migrate(on: server)
            let databases = try ServiceRoles.serviceDatabases(on: server)
            // The stack's administration commands (lab key, officer) and the four services, each as its own role;
            // submission's distribution runs in it every 2 s.
            try await EndToEndStack.run(databases: databases) { stack in
                let demo = try await ServiceProcess.run("exposure-suite", ["demo"], environment: stack.demoEnvironment)
                #expect(demo.status == 0, "\(demo.output)\n\(stack.logs)")
                #expect(demo.output.contains("Every step held."))
                #expect(!stack.logs.contains("permission denied"), "\(stack.logs)")
            }

            // A service role can change rows, not the schema, and cannot reach another service's database.
            let create = await Self.attempt(server, role: "verification_service", database: "verification", "CREATE TABLE intruder (x INT)")
            #expect(create?.contains("permission denied for schema public") == true, "\(create ?? "allowed")")
            let drop = await Self.attempt(server, role: "submission_service", database: "submission", "DROP TABLE diagnosis_keys")
            #expect(drop?.contains("must be owner") == true, "\(drop ?? "allowed")")
            let foreign = await Self.attempt(server, role: "verification_service", database: "testresult", "SELECT 1")
            #expect(foreign?.contains("permission denied for database") == true, "\(foreign ?? "allowed")")
            let write = await Self.attempt(server, role: "testresult_service", database: "testresult", "DELETE FROM schema_migrations WHERE false")
            #expect(write == nil, "\(write ?? "")")
        }
    }

    /// A service role meets a schema change with a clear error, and `migrate` with the migration role is the way.
    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func aServiceRoleCannotMigrate(kind: TestDatabase) async throws {
        try await ThrowawayPostgres.withServer { server in
            try await ServiceRoles.create(on: server)
            let run = try await ServiceProcess.capture("testresult-service", ["migrate"], environment: [
                "DATABASE_URL": try ServiceRoles.url(server, role: "testresult_service", database: "testresult").connectionString,
            ], timeout: .seconds(60))
            #expect(run.status == 1)
            #expect(run.standardError.contains("permission denied for schema public"), "\(run.standardError)")
        }
    }
}
