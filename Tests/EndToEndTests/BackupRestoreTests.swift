import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// docs/operations.md, "Backup and restore", once: the suite's four databases dumped with pg_dump after the story
/// ran, restored with pg_restore into a fresh server laid out by deploy/postgres-init.sql, and the suite continues
/// there: what was stored before the dump is there, `migrate` finds nothing to do, the story runs again.
@Suite(.serialized) struct BackupRestoreTests {
    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func aRestoredSuiteContinues(kind: TestDatabase) async throws {
        let dumps = FileManager.default.temporaryDirectory.appendingPathComponent("backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dumps, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dumps) }

        var before: (labID: String, officer: String, keys: Int)?
        try await ThrowawayPostgres.withServer { original in
            try await ServiceRoles.create(on: original)
            try await ServiceRoles.migrate(on: original)
            try await EndToEndStack.run(databases: try ServiceRoles.serviceDatabases(on: original)) { stack in
                let demo = try await ServiceProcess.run("exposure-suite", ["demo"], environment: stack.demoEnvironment)
                try #require(demo.status == 0, "\(demo.output)\n\(stack.logs)")
                before = (stack.labID, stack.officer.user, try await stack.storedKeys())
            }
            // The runbook's backup: each database in the custom format, as the migration role.
            for database in ServiceRoles.services {
                _ = try await ExternalTool.run([
                    "pg_dump", "--format=custom", "--host=127.0.0.1", "--port=\(original.port)", "--username=exposure_migration",
                    "--dbname=\(database)", "--file=\(dumps.appendingPathComponent("\(database).dump").path)",
                ])
            }
        }
        let stored = try #require(before)
        #expect(stored.keys > 0)

        try await ThrowawayPostgres.withServer { restored in
            // The runbook's restore: roles and empty databases first, then each dump as the migration role.
            try await ServiceRoles.create(on: restored)
            for database in ServiceRoles.services {
                _ = try await ExternalTool.run([
                    "pg_restore", "--host=127.0.0.1", "--port=\(restored.port)", "--username=exposure_migration", "--dbname=\(database)",
                    "--no-owner", "--role=exposure_migration", "--exit-on-error", dumps.appendingPathComponent("\(database).dump").path,
                ])
            }
            for (service, run) in try await ServiceRoles.migrate(on: restored) {
                #expect(!run.standardOutput.contains("applied migration") && !run.standardError.contains("applied migration"), "\(service) migrated again")
            }
            try await EndToEndStack.run(databases: try ServiceRoles.serviceDatabases(on: restored)) { stack in
                // The keys, the lab and the officer of before are there, readable by the services' own roles.
                #expect(try await stack.storedKeys() >= stored.keys)
                let labs = try await ServiceProcess.capture("testresult-service", ["labs", "list"], environment: stack.environments["testresult-service"]!)
                #expect(labs.status == 0 && labs.standardOutput.contains(stored.labID), "\(labs.standardOutput)\(labs.standardError)")
                let users = try await ServiceProcess.capture("portal-service", ["users", "list"], environment: stack.environments["portal-service"]!)
                #expect(users.status == 0 && users.standardOutput.contains(stored.officer), "\(users.standardOutput)\(users.standardError)")
                // And the story goes on: registrations, results, TANs, submissions and a signed export.
                let demo = try await ServiceProcess.run("exposure-suite", ["demo"], environment: stack.demoEnvironment)
                #expect(demo.status == 0, "\(demo.output)\n\(stack.logs)")
                #expect(demo.output.contains("Every step held."))
                #expect(!stack.logs.contains("permission denied"), "\(stack.logs)")
            }
        }
    }
}
