import ExposureCore
import Foundation

/// A PostgreSQL server of a test's own, in a temporary directory on a free port, that the test may stop, start
/// and restart: fault tests must never restart the server every other test shares (`TEST_POSTGRES_URL`).
///
/// PostgreSQL refuses to run as root, so as root every server command runs as the `postgres` user (through
/// `runuser`) in a directory that user owns, as `scripts/test.sh` does. `fsync` is off (a test survives no power
/// loss), but `synchronous_commit` stays on: a commit that was answered must survive `pg_ctl stop -m immediate`,
/// or a test could not tell a lost submission from a misconfigured server.
public final class ThrowawayPostgres: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    public let user: String
    private let binaries: URL
    private let runAsPostgres: Bool

    /// The server's maintenance database, as a `DatabaseURL` services accept.
    public var adminURL: DatabaseURL {
        get throws { try DatabaseURL(parsing: "postgres://\(user)@127.0.0.1:\(port)/postgres", variable: "ThrowawayPostgres") }
    }

    /// Creates the cluster (initdb) and starts the server; stop it with `destroy()`.
    public init() async throws {
        guard let binaries = Self.findBinaries() else { throw ThrowawayPostgresError.notInstalled }
        self.binaries = binaries
        runAsPostgres = getuid() == 0
        user = runAsPostgres ? "postgres" : ProcessInfo.processInfo.userName
        port = ServiceProcess.freePort()
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("fault-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if runAsPostgres {
            // The server's files and its socket live here; the postgres user must own them.
            try await run("/bin/chown", ["postgres", directory.path], asPostgres: false)
        }
        try await pg("initdb", ["-D", dataDirectory, "--auth=trust", "--username=\(user)", "--encoding=UTF8", "--no-instructions"])
        try await start()
    }

    private var dataDirectory: String { directory.appendingPathComponent("data").path }
    public var serverLog: String { (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? "" }

    /// Starts the server and returns once it accepts connections.
    public func start() async throws {
        try await pg("pg_ctl", [
            "-D", dataDirectory, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60", "start",
            "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200",
        ])
    }

    /// Stops the server: `fast` ends every session (rolling back open transactions), `immediate` is a crash.
    public func stop(mode: StopMode = .fast) async throws {
        try await pg("pg_ctl", ["-D", dataDirectory, "-m", mode.rawValue, "-w", "-t", "60", "stop"])
    }

    /// Stops the server, leaves it down for `downtime` (clients see refused connections), and starts it again.
    public func restart(mode: StopMode = .fast, downtime: Duration = .seconds(1)) async throws {
        try await stop(mode: mode)
        try await Task.sleep(for: downtime)
        try await start()
    }

    public enum StopMode: String, Sendable {
        case fast
        case immediate
    }

    /// A new, empty database on this server.
    public func createDatabase() async throws -> DatabaseURL {
        let name = "f_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try await Database.connect(try adminURL, poolSize: 1, logger: TestLogger.quiet)
        do {
            try await admin.withConnection { try await $0.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
            await admin.shutdown()
        } catch {
            await admin.shutdown()
            throw error
        }
        return try PostgresTestServer.url(try adminURL, database: name)
    }

    /// Stops the server at once and removes its files.
    public func destroy() async {
        try? await stop(mode: .immediate)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts a server, runs `body`, and removes the server whatever happened.
    public static func withServer<T: Sendable>(_ body: (ThrowawayPostgres) async throws -> T) async throws -> T {
        let server = try await ThrowawayPostgres()
        do {
            let result = try await body(server)
            await server.destroy()
            return result
        } catch {
            await server.destroy()
            throw error
        }
    }

    // MARK: - Commands

    private func pg(_ tool: String, _ arguments: [String]) async throws {
        try await run(binaries.appendingPathComponent(tool).path, arguments, asPostgres: runAsPostgres)
    }

    /// Runs a command to its end without blocking a thread of the concurrency pool (pg_ctl waits seconds).
    ///
    /// Output goes to a file, not a pipe: `pg_ctl start` leaves the server running with the inherited descriptors,
    /// and a pipe would then never reach its end.
    private func run(_ executable: String, _ arguments: [String], asPostgres: Bool) async throws {
        let process = Process()
        if asPostgres {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-command-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        guard status == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw ThrowawayPostgresError.commandFailed("\(executable) \(arguments.joined(separator: " "))", status, text + "\n" + serverLog)
        }
    }

    /// The folder of `initdb` and `pg_ctl`: Debian's versioned folders, a source build, or the PATH.
    static func findBinaries() -> URL? {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        if let versions = try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            // The newest version first.
            for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
                candidates.append(URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin"))
            }
        }
        candidates.append(URL(fileURLWithPath: "/usr/local/pgsql/bin"))
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append(URL(fileURLWithPath: String(folder)))
        }
        return candidates.first { folder in
            fileManager.isExecutableFile(atPath: folder.appendingPathComponent("initdb").path)
                && fileManager.isExecutableFile(atPath: folder.appendingPathComponent("pg_ctl").path)
        }
    }
}

public enum ThrowawayPostgresError: Error, CustomStringConvertible {
    case notInstalled
    case commandFailed(String, Int32, String)

    public var description: String {
        switch self {
        case .notInstalled:
            "PostgreSQL's initdb and pg_ctl were not found (apt-get install postgresql; scripts/test.sh installs it as root)"
        case .commandFailed(let command, let status, let output):
            "\(command) exited with \(status):\n\(output)"
        }
    }
}
