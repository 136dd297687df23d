import Crypto
import Foundation

/// Runs tools that share nothing with this code base (protoc, Python, OpenSSL), for the tests whose point is an
/// independent check of what the services write.
public enum ExternalTool {
    public struct Failed: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The fixtures written from the contracts: `.proto` files and the Python scripts that use them.
    public static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/SubmissionTests/Fixtures")

    /// The `.proto` files the project publishes (`Shared/Protocol/proto`): for the app configuration, whose message
    /// is our own, these are the contract an app is given.
    public static let publishedProtos = fixtures
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Shared/Protocol/proto")

    /// Runs `arguments` (the tool first, found on PATH) and returns what it printed; throws when it cannot start or
    /// exits non-zero, with what it wrote to standard error.
    public static func run(_ arguments: [String]) async throws -> Data {
        try await onThreadOfItsOwn { try runBlocking(arguments) }
    }

    private static func runBlocking(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw Failed(description: "cannot start \(arguments[0]): \(error) (install protobuf-compiler and python3-protobuf)")
        }
        // Read before waiting, so that a large output cannot fill the pipe and block the tool.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "\(arguments[0]) failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self)) "
                + "(the test needs protoc, OpenSSL and Python 3 with the protobuf package: apt-get install protobuf-compiler python3-protobuf)")
        }
        return data
    }

    /// A Python 3 that has the protobuf package: `PYTHON` if set, else the system interpreter (where Debian's
    /// python3-protobuf lives), else the first `python3` on PATH.
    public static var python: String {
        if let configured = ProcessInfo.processInfo.environment["PYTHON"], !configured.isEmpty { return configured }
        for candidate in ["/usr/bin/python3", "python3"] where (try? runBlocking([candidate, "-c", "import google.protobuf"])) != nil {
            return candidate
        }
        return "python3"
    }

    /// protoc's Python classes for the fixture `proto`, in a new temporary directory (the caller removes it).
    public static func pythonClasses(for proto: String) throws -> URL {
        try pythonClasses(for: [(proto, fixtures)])
    }

    /// protoc's Python classes for each `.proto` (its name and the directory it is in), all in one new temporary
    /// directory (the caller removes it), so that one script can import them together.
    public static func pythonClasses(for protos: [(name: String, directory: URL)]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for proto in protos {
            _ = try runBlocking(["protoc", "--python_out=\(directory.path)", "-I", proto.directory.path, proto.name])
        }
        return directory
    }

    /// Whether OpenSSL verifies `signature` (DER, ECDSA with SHA-256) over the file `data` with the PEM public key
    /// `publicKey`: the check a phone or a CDN operator can make without our code.
    public static func opensslVerifies(_ data: URL, signature: URL, publicKey: URL) -> Bool {
        guard let output = try? runBlocking(["openssl", "dgst", "-sha256", "-verify", publicKey.path, "-signature", signature.path, data.path]) else {
            return false
        }
        return String(decoding: output, as: UTF8.self).contains("Verified OK")
    }

    /// Whether OpenSSL verifies `signature` over the file `data` with `publicKey` (written to a PEM file beside
    /// them), and refuses it once the data's last byte is changed: a check that is shown able to fail. The file is
    /// left changed.
    public static func opensslVerifiesOnlyTheSignedBytes(_ data: URL, signature: URL, publicKey: P256.Signing.PublicKey) throws -> Bool {
        let publicKeyFile = data.deletingLastPathComponent().appendingPathComponent("public.pem")
        try publicKey.pemRepresentation.write(to: publicKeyFile, atomically: true, encoding: .utf8)
        guard opensslVerifies(data, signature: signature, publicKey: publicKeyFile) else { return false }
        var tampered = try Data(contentsOf: data)
        tampered[tampered.count - 1] ^= 1
        try tampered.write(to: data)
        return !opensslVerifies(data, signature: signature, publicKey: publicKeyFile)
    }
}
