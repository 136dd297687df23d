import AsyncHTTPClient
import Foundation
import NIOCore

/// One GET of a service's own health route on its management listener, as a container health check makes it: the
/// runtime image has no curl, so the executables ask themselves (`healthcheck`).
public struct HealthProbe: Sendable {
    /// Which route: `/health/ready` (the service's checks: its database, the services it calls) or `/health/live`
    /// (the process answers).
    public enum Route: String, Sendable {
        case ready = "/health/ready"
        case live = "/health/live"
    }

    /// What the probe found, as the one line the command prints.
    public struct Outcome: Sendable, Equatable {
        public let healthy: Bool
        public let message: String

        public init(healthy: Bool, message: String) {
            self.healthy = healthy
            self.message = message
        }
    }

    public let url: String
    public let timeout: Duration

    /// - Parameters:
    ///   - listener: the management listener as configured; a wildcard bind address (`0.0.0.0`, `::`) is asked on
    ///     the matching loopback address, which every wildcard listener also answers on.
    ///   - timeout: the whole probe, connecting included, so that a hung service fails the check instead of hanging it.
    public init(listener: ListenerAddress, route: Route, timeout: Duration) {
        url = "http://\(Self.connectHost(listener.host)):\(listener.port)\(route.rawValue)"
        self.timeout = timeout
    }

    /// The address to connect to for a listener bound to `host`.
    static func connectHost(_ host: String) -> String {
        switch host {
        case "", "0.0.0.0": "127.0.0.1"
        case "::", "[::]": "[::1]"
        case _ where host.contains(":") && !host.hasPrefix("["): "[\(host)]"
        default: host
        }
    }

    public func run() async -> Outcome {
        // Connection failures are reported at once rather than retried until the deadline: nothing listening is an
        // answer, and a quick one lets the runtime restart the container sooner.
        let http = DownstreamHTTPClient(connectTimeout: timeout)
        let outcome = await ask(http.client)
        await http.shutdown()
        return outcome
    }

    private func ask(_ client: HTTPClient) async -> Outcome {
        let started = ContinuousClock.now
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .milliseconds(Int64(timeout.seconds * 1000)))
            let body = try await response.body.collect(upTo: 64 * 1024)
            let answered = "GET \(url) answered \(response.status.code)"
            return response.status == .ok
                ? Outcome(healthy: true, message: answered)
                : Outcome(healthy: false, message: answered + Self.downChecks(in: body))
        } catch {
            // The deadline shows as one of several errors depending on where it struck (connecting, waiting for
            // the head, reading the body); the clock tells them all apart from a refusal.
            if ContinuousClock.now - started >= timeout {
                return Outcome(healthy: false, message: "GET \(url): no answer within \(timeout)")
            }
            return Outcome(healthy: false, message: "GET \(url): \(Self.describe(error))")
        }
    }

    /// A failed request in words, as one line: the HTTP client's errors print nested descriptions with errno values.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("Connection refused") || text.contains("errno: 111") {
            return "connection refused: nothing listens there (is the service running, with these MANAGEMENT_BIND_HOST and MANAGEMENT_PORT?)"
        }
        if text.contains("Connection reset") { return "the connection was reset before an answer came" }
        if text.contains("remoteConnectionClosed") { return "the service closed the connection before answering" }
        return "failed (\(type(of: error)))"
    }

    /// ` (down: database, verification)` from a readiness answer's `checks`, so that the line says what is failing.
    static func downChecks(in body: ByteBuffer) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
              let checks = object["checks"] as? [String: String] else { return "" }
        let down = checks.filter { $0.value != "up" }.keys.sorted()
        return down.isEmpty ? "" : " (down: \(down.joined(separator: ", ")))"
    }
}
