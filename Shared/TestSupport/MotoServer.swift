import ExposureCore
import Foundation

/// moto's S3 server (PyPI `moto[server]`), a real S3 API on a local port, for the tests of publishing to an object
/// store. `MOTO_SERVER` names its `moto_server` executable (`scripts/test.sh` and CI install it into a virtual
/// environment and set it), else one on PATH is used. With `REQUIRE_MOTO=1` (set by `scripts/test.sh` and CI) a
/// missing moto is a failure, never a silent skip.
public final class MotoServer: Sendable {
    public let process: ServiceProcess
    public let endpoint: URL
    public static let region = "us-east-1"
    /// moto accepts any credentials; these are what the tests sign with.
    public static let accessKeyID = "AKIDMOTOTEST"
    public static let secretAccessKey = "moto-test-secret"

    public static var isRequired: Bool { ProcessInfo.processInfo.environment["REQUIRE_MOTO"] == "1" }

    /// `moto_server`: `MOTO_SERVER`, else the first on PATH.
    public static var executable: URL? {
        let environment = ProcessInfo.processInfo.environment
        if let configured = environment["MOTO_SERVER"], !configured.isEmpty { return URL(fileURLWithPath: configured) }
        for folder in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("moto_server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// For `.enabled(if:)`: whether the object-store tests run. When moto is required they always do (and fail at
    /// start-up if it is missing); otherwise a banner says they were left out.
    public static var testsRun: Bool {
        if isRequired || executable != nil { return true }
        _ = warnOnceThatObjectStoreTestsAreLeftOut
        return false
    }

    private static let warnOnceThatObjectStoreTestsAreLeftOut: Void = {
        FileHandle.standardError.write(Data("""

            ******** The object-store tests do NOT run: moto_server is not on PATH and MOTO_SERVER is not set. Run
            ******** scripts/test.sh (it installs moto into a virtual environment), or pip install 'moto[server]'.

            """.utf8))
    }()

    private init(process: ServiceProcess, port: Int) {
        self.process = process
        endpoint = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts a fresh (empty) moto, runs `body`, stops it.
    public static func run<T: Sendable>(_ body: (MotoServer) async throws -> T) async throws -> T {
        guard let executable else {
            throw ExternalTool.Failed(description: "REQUIRE_MOTO=1 but moto_server was not found: set MOTO_SERVER to its path, or put it on PATH (pip install 'moto[server]')")
        }
        let port = ServiceProcess.freePort()
        let process = try ServiceProcess(executableURL: executable, arguments: ["-H", "127.0.0.1", "-p", "\(port)"], environment: [:])
        // SIGKILL: moto keeps everything in memory, so there is nothing to lose, and on SIGTERM it waits for the
        // keep-alive connections of the tests' HTTP client to close, which they need not do.
        defer { process.kill() }
        // `GET /` is ListBuckets: 200 once the server answers.
        try await process.waitUntilReady("http://127.0.0.1:\(port)/", timeout: .seconds(60))
        return try await body(MotoServer(process: process, port: port))
    }

    /// A client for `bucket` on this server, path-style as moto on 127.0.0.1 needs.
    public func client(bucket: String) -> S3Client {
        S3Client(endpoint: endpoint, region: Self.region, bucket: bucket, pathStyle: true, accessKeyID: Self.accessKeyID, secretAccessKey: Self.secretAccessKey)
    }

    /// The settings that point the distribution at `bucket` here.
    public func settings(bucket: String, prefix: String = "") -> [String: String] {
        [
            "EXPORT_S3_ENDPOINT": endpoint.absoluteString, "EXPORT_S3_REGION": Self.region, "EXPORT_S3_BUCKET": bucket,
            "EXPORT_S3_PREFIX": prefix, "EXPORT_S3_PATH_STYLE": "true",
            "EXPORT_S3_ACCESS_KEY_ID": Self.accessKeyID, "EXPORT_S3_SECRET_ACCESS_KEY": Self.secretAccessKey,
        ]
    }
}
