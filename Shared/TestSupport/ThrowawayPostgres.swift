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
    /// Not with Foundation's `Process`: on Linux it learns that a child ended when a socket the child inherited
    /// closes, and `pg_ctl start` hands that socket on to the server it leaves running, so the command would seem
    /// to run until the server stops. Here the child is spawned directly and its own exit is awaited (`waitpid`)
    /// on a thread of its own. Output goes to a file: the server keeps the descriptors it inherited, so it inherits
    /// no others.
    private func run(_ executable: String, _ arguments: [String], asPostgres: Bool) async throws {
        let argv = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-command-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: output) }
        let status = try await Self.spawnAndWait(argv, outputPath: output.path)
        guard status == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw ThrowawayPostgresError.commandFailed(argv.joined(separator: " "), status, text + "\n" + serverLog)
        }
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34) is not in Swift's Glibc module, so it is looked up;
    /// without it, every descriptor the test process may have open is closed one by one (closing one that is not
    /// open is not an error for posix_spawn).
    private static func closeFrom(_ first: Int32, in actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"),
           unsafeBitCast(symbol, to: CloseFrom.self)(&actions, first) == 0 {
            return
        }
        for fd in first..<Int32(min(sysconf(Int32(_SC_OPEN_MAX)), 4096)) { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    /// Spawns `argv` with standard input from /dev/null and both outputs appended to `outputPath`, and returns its
    /// exit status (128 + the signal when a signal ended it).
    private static func spawnAndWait(_ argv: [String], outputPath: String) async throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test process: `pg_ctl start` leaves the server running with whatever it inherited, and
        // a server holding the test's end of an HTTP connection keeps that connection open after the test closed
        // it, so the service at the other end waited for it in its graceful shutdown.
        closeFrom(3, in: &actions)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw ThrowawayPostgresError.commandFailed(argv.joined(separator: " "), -1, String(cString: strerror(spawned)))
        }
        let child = pid
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1, errno == EINTR {}
                let signal = status & 0x7F
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
            }
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
