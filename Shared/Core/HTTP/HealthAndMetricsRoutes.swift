import ExposureBuildInfo
import Foundation
import Hummingbird
import NIOCore

/// A dependency that must answer for the service to be ready (its database, a downstream service).
public struct ReadinessCheck: Sendable {
    public let name: String
    public let check: @Sendable () async throws -> Void

    public init(name: String, check: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.check = check
    }

    public static func database(_ database: Database) -> ReadinessCheck {
        ReadinessCheck(name: "database") { try await database.ping() }
    }
}

extension Router {
    /// `/health/live`: the process answers. On the management listener (`describingBuild`) it also says which build
    /// runs (`BuildInfo`); listeners others reach say nothing an outsider could fingerprint the installation by.
    public func addLivenessRoute(describingBuild: Bool = false) {
        let body = describingBuild
            ? ["status": "up", "version": BuildInfo.version, "commit": BuildInfo.commit, "built": BuildInfo.buildDate]
            : ["status": "up"]
        get("/health/live") { _, _ in
            Self.json(body, status: .ok)
        }
    }

    /// `/health/live` (the process answers), `/health/ready` (every dependency answers within 2 s).
    public func addHealthRoutes(checks: [ReadinessCheck]) {
        addLivenessRoute(describingBuild: true)
        get("/health/ready") { _, _ in
            var results: [String: String] = [:]
            await withTaskGroup(of: (String, Bool).self) { group in
                for check in checks {
                    group.addTask {
                        let ok = await withTimeout(seconds: 2) { try await check.check() }
                        return (check.name, ok)
                    }
                }
                for await (name, ok) in group { results[name] = ok ? "up" : "down" }
            }
            let ready = results.values.allSatisfy { $0 == "up" }
            var body: [String: Any] = ["status": ready ? "up" : "down"]
            body["checks"] = results
            return Self.json(body, status: ready ? .ok : .serviceUnavailable)
        }
    }

    /// `/metrics` in Prometheus text format.
    public func addMetricsRoute() {
        get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: Observability.renderMetrics()))
            )
        }
    }

    private static func json(_ object: [String: Any], status: HTTPResponse.Status) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// Runs `work`; true when it finished without error within `seconds`.
func withTimeout(seconds: Double, _ work: @escaping @Sendable () async throws -> Void) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            do { try await work(); return true } catch { return false }
        }
        group.addTask {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}
