import AsyncHTTPClient
import Foundation
import Synchronization
import Testing

/// A service executable running as a separate process, as in production: wired by configuration only.
public final class ServiceProcess: @unchecked Sendable {
    public let name: String
    public let process: Process
    public let logFile: URL

    /// The folder of the built executables (beside the test bundle).
    public static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Starts `executable` with `arguments` and exactly `environment` (plus PATH), logging to a temporary file.
    public convenience init(_ executable: String, arguments: [String] = ["serve"], environment: [String: String]) throws {
        try self.init(executableURL: Self.productsDirectory.appendingPathComponent(executable), arguments: arguments, environment: environment)
    }

    /// Starts any program (a stand-in server such as moto) the same way.
    public init(executableURL: URL, arguments: [String], environment: [String: String]) throws {
        let executable = executableURL.lastPathComponent
        name = executable
        process = Process()
        process.executableURL = executableURL
        process.arguments = arguments
        var variables = environment
        variables["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        process.environment = variables
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(executable)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)  // FileHandle below reports a failure
        let handle = try FileHandle(forWritingTo: logFile)
        process.standardOutput = handle
        process.standardError = handle
        // One launch at a time in the process: with tests running in parallel, Foundation's Process.run on Linux,
        // called from several threads at once, crashed the test process (a bad pointer in the launch).
        try Self.launchLock.withLock { try process.run() }
    }

    private static let launchLock = NSLock()

    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Waits until `url` answers 200 (`/health/ready` of a listener), or fails with the process's log.
    public func waitUntilReady(_ url: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw ServiceProcessError.exited(name, process.terminationStatus, log) }
            if let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(1)), response.status == .ok {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ServiceProcessError.notReady(name, log)
    }

    /// SIGTERM, then waits for the graceful exit; SIGKILL if it has not come after `patience`, so that a service
    /// stuck in its shutdown fails its own test (a recorded issue) instead of hanging the run.
    public func stop(patience: Duration = .seconds(30)) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + patience
        while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            kill()
            Issue.record("\(name) did not stop within \(patience) of SIGTERM and was killed. Its log: \(logFile.path)")
        }
    }

    /// SIGKILL: a crash, for failure tests.
    public func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// Runs a command of an executable to completion and returns its exit code and output.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: String) {
        try await onThreadOfItsOwn { try runBlocking(executable, arguments, environment: environment) }
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent(executable)
        process.arguments = arguments
        var variables = environment
        variables["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        process.environment = variables
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// What a command printed, standard output and standard error apart, and how it exited.
    public struct Outcome: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
        /// It was still running after the timeout and was killed: a command that should have exited started
        /// something.
        public let timedOut: Bool
    }

    /// Runs a command of an executable to completion with empty standard input, keeping what it wrote to standard
    /// output (a `--json` document, say) apart from what it wrote to standard error. A process still running after
    /// `timeout` is killed (`timedOut`), so that a command that starts a server by mistake fails its test.
    public static func capture(
        _ executable: String, _ arguments: [String], environment: [String: String], timeout: Duration = .seconds(60),
        workingDirectory: URL? = nil
    ) async throws -> Outcome {
        try await onThreadOfItsOwn {
            try captureBlocking(executable, arguments, environment: environment, timeout: timeout, workingDirectory: workingDirectory)
        }
    }

    private static func captureBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String], timeout: Duration, workingDirectory: URL?
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent(executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        var variables = environment
        variables["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        process.environment = variables
        process.standardInput = FileHandle.nullDevice
        // Both streams go to files, read once the process has ended: nothing it writes can stall it, and the wait
        // below can give up on it.
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("\(executable)-\(UUID().uuidString)")
        let outputFile = base.appendingPathExtension("stdout"), errorFile = base.appendingPathExtension("stderr")
        defer { for file in [outputFile, errorFile] { try? FileManager.default.removeItem(at: file) } }
        for file in [outputFile, errorFile] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let timedOut = process.isRunning
        if timedOut { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let read = { (file: URL) in (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
        return Outcome(status: process.terminationStatus, standardOutput: read(outputFile), standardError: read(errorFile), timedOut: timedOut)
    }

    /// A port that was free a moment ago, for a process that binds it later.
    ///
    /// It is taken below the kernel's range of ephemeral ports. A port from that range (what binding port 0 gives)
    /// can be taken by any outgoing connection before the process binds it, and the tests make many: a service of
    /// an end-to-end stack then failed to start with "Address already in use". The ports handed out are
    /// remembered, so that tests running side by side never get the same one.
    public static func freePort() -> Int {
        let lowestEphemeral = ephemeralPortRange?.lowerBound ?? 32768
        let candidates = 10_000..<max(10_001, lowestEphemeral)
        for _ in 0..<200 {
            let port = Int.random(in: candidates)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if bound(to: port) != nil { return port }
        }
        // None found below the range: one the kernel chooses.
        return bound(to: 0) ?? 0
    }

    private static let handedOut = Mutex<Set<Int>>([])

    /// `net.ipv4.ip_local_port_range`: the ports the kernel picks for outgoing connections and for port 0.
    private static var ephemeralPortRange: ClosedRange<Int>? {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) else { return nil }
        let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return nil }
        return bounds[0]...bounds[1]
    }

    /// Binds a TCP socket on 127.0.0.1 to `port` and closes it again; the port it got, or nil.
    private static func bound(to port: Int) -> Int? {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public enum ServiceProcessError: Error, CustomStringConvertible {
    case exited(String, Int32, String)
    case notReady(String, String)

    public var description: String {
        switch self {
        case .exited(let name, let status, let log): "\(name) exited with \(status):\n\(log)"
        case .notReady(let name, let log): "\(name) did not become ready:\n\(log)"
        }
    }
}
