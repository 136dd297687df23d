import ExposureCore
import ExposureTestSupport
import Foundation
import Hummingbird
import Testing

/// Slow and silent clients cannot hold a listener (`ListenerLimits`, `ConnectionGuard`).
///
/// These tests wait for the server to close connections, up to generous bounds; they assert that a close happens,
/// never how fast a request is answered.
@Suite struct ListenerLimitsTests {
    /// How long a test waits for the server to close a connection its limits cut off. Those limits (300 ms, 500 ms)
    /// are what these tests prove, so the wait has a bound; it is far above them because the server's timer can fire
    /// late on a busy machine, and a connection that closes returns at once.
    static let serverClosesWithin: Double = 60

    func withListener(limits: ListenerLimits, _ body: (TestHTTPClient) async throws -> Void) async throws {
        let router = StandardRouter.make(service: "limits-test", bodyLimit: .init(maxBytes: 10_000))
        router.post("/echo") { request, _ -> String in
            let body = try await request.body.collect(upTo: 10_000)
            return "\(body.readableBytes)"
        }
        let bundle = TestServices.standIn("limits-test", listener: "main", router: router, limits: limits)
        try await TestServices.withRunning([bundle]) { running in
            try await body(await TestServices.client(running, "limits-test", "main"))
        }
    }

    /// The slowloris attack: fifty connections that announce a body and send it a byte every 100 ms, which keeps them
    /// clear of any idle timeout. The read deadline cuts each off; others are answered meanwhile.
    @Test func requestsThatTrickleAreCutOffWhileOthersAreAnswered() async throws {
        try await withListener(limits: ListenerLimits(idleTimeout: .seconds(60), readTimeout: .milliseconds(500), maxConnections: 1000)) { client in
            let slow = try (0..<50).map { _ in try SlowConnection(port: client.port) }
            for connection in slow {
                connection.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nx")
            }
            for _ in 0..<10 {
                try await Task.sleep(for: .milliseconds(100))
                for connection in slow { connection.send("x") }
                let answer = try await client.postRaw("/echo", Array("hello".utf8), contentType: "text/plain")
                #expect(answer.status == 200)
                #expect(answer.text == "5")
            }
            for (index, connection) in slow.enumerated() {
                #expect(await connection.closedByServer(within: Self.serverClosesWithin), "slow connection \(index) is still open")
            }
        }
    }

    /// A connection that opens and sends nothing is closed after the idle timeout.
    @Test func silentConnectionsAreClosed() async throws {
        try await withListener(limits: ListenerLimits(idleTimeout: .milliseconds(300), readTimeout: .seconds(60), maxConnections: 1000)) { client in
            let silent = try SlowConnection(port: client.port)
            #expect(await silent.closedByServer(within: Self.serverClosesWithin))
        }
    }

    /// Connections beyond the cap are closed as soon as they are accepted; once some close, new ones are served.
    @Test func connectionsBeyondTheCapAreClosedAtOnce() async throws {
        try await withListener(limits: ListenerLimits(idleTimeout: .seconds(60), readTimeout: .seconds(60), maxConnections: 4)) { client in
            var held = try (0..<4).map { _ in try SlowConnection(port: client.port) }
            // The four are counted when they become active; a fifth, after them, finds the listener full.
            try await Task.sleep(for: .milliseconds(200))
            let extra = try SlowConnection(port: client.port)
            #expect(await extra.closedByServer(within: Self.serverClosesWithin))
            #expect(!(await held[0].closedByServer(within: 0.2)), "a connection under the cap was closed")
            held.removeAll()
            var served = false
            for _ in 0..<50 where !served {
                served = (try? await client.postRaw("/echo", Array("hi".utf8), contentType: "text/plain").status) == 200
                if !served { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(served)
        }
    }

    @Test func limitsAreReadFromTheirSettings() throws {
        let defaults = try ListenerLimits(Settings(arguments: ["test"], environment: [:]))
        #expect(defaults == ListenerLimits())
        let set = try ListenerLimits(Settings(arguments: ["test"], environment: [
            "HTTP_IDLE_TIMEOUT": "30s", "HTTP_READ_TIMEOUT": "5s", "HTTP_MAX_CONNECTIONS": "200",
        ]))
        #expect(set == ListenerLimits(idleTimeout: .seconds(30), readTimeout: .seconds(5), maxConnections: 200))
        #expect(throws: ConfigurationError.self) { try ListenerLimits(Settings(arguments: ["test"], environment: ["HTTP_MAX_CONNECTIONS": "0"])) }
    }
}
