import ExposureCore
import ExposureTestSupport
import Foundation
import Hummingbird
import Testing

/// `HealthProbe`, what the executables' `healthcheck` command asks: healthy only on a 200, a failing check named, and
/// every kind of failure (refused, hung, 503) answered within the timeout.
@Suite struct HealthProbeTests {
    /// A management listener with `readiness`, or, with `hangUntil`, one whose `/health/ready` answers only once the
    /// test sets that flag (after the probe has given up; the listener's graceful shutdown then does not wait).
    func withManagement(readiness: [ReadinessCheck] = [], hangUntil release: Flag? = nil, _ body: (ListenerAddress) async throws -> Void) async throws {
        let router: Router<BasicRequestContext>
        if let release {
            router = Router(context: BasicRequestContext.self)
            router.get("/health/ready") { _, _ -> String in
                try await release.wait(limit: .seconds(60))
                return "late"
            }
        } else {
            router = ManagementRouter.make(readiness: readiness)
        }
        let bundle = TestServices.standIn("probe-test", listener: "management", router: router)
        try await TestServices.withRunning([bundle]) { running in
            try await body(ListenerAddress(host: "127.0.0.1", port: await running.bundle("probe-test").port("management")))
        }
    }

    @Test func aReadyServiceIsHealthy() async throws {
        try await withManagement(readiness: [ReadinessCheck(name: "database") {}]) { address in
            let outcome = await HealthProbe(listener: address, route: .ready, timeout: .seconds(5)).run()
            #expect(outcome.healthy, "\(outcome.message)")
            #expect(outcome.message == "GET http://127.0.0.1:\(address.port)/health/ready answered 200")
        }
    }

    /// A 503 is unhealthy, and the line names the checks that failed, so that `docker inspect` says what is down.
    @Test func aFailingCheckIsNamed() async throws {
        struct Down: Error {}
        let checks = [ReadinessCheck(name: "database") {}, ReadinessCheck(name: "verification") { throw Down() }]
        try await withManagement(readiness: checks) { address in
            let ready = await HealthProbe(listener: address, route: .ready, timeout: .seconds(5)).run()
            #expect(!ready.healthy)
            #expect(ready.message == "GET http://127.0.0.1:\(address.port)/health/ready answered 503 (down: verification)")
            // Liveness does not depend on the checks.
            let live = await HealthProbe(listener: address, route: .live, timeout: .seconds(5)).run()
            #expect(live.healthy, "\(live.message)")
            #expect(live.message.hasSuffix("/health/live answered 200"))
        }
    }

    /// Nothing listening is an answer at once, not a wait for the timeout: the probe says the connection failed, where
    /// a probe that waited would say "no answer within 20 seconds".
    @Test func nothingListeningFailsAtOnce() async throws {
        let address = ListenerAddress(host: "127.0.0.1", port: ServiceProcess.freePort())
        let outcome = await HealthProbe(listener: address, route: .ready, timeout: .seconds(20)).run()
        #expect(!outcome.healthy)
        // One line in words, not the HTTP client's nested description with its errno.
        #expect(outcome.message == "GET http://127.0.0.1:\(address.port)/health/ready: connection refused: nothing listens there (is the service running, with these MANAGEMENT_BIND_HOST and MANAGEMENT_PORT?)", "\(outcome.message)")
    }

    /// A service that accepts the connection and never answers (it answers only when the test lets it, after the
    /// probe returned) fails the probe at its timeout, and not before it.
    @Test func aHungServiceFailsAtTheTimeout() async throws {
        let release = Flag()
        try await withManagement(hangUntil: release) { address in
            let started = ContinuousClock.now
            let outcome = await HealthProbe(listener: address, route: .ready, timeout: .milliseconds(300)).run()
            let took = ContinuousClock.now - started
            release.set()
            #expect(!outcome.healthy)
            #expect(outcome.message == "GET http://127.0.0.1:\(address.port)/health/ready: no answer within 0.3 seconds")
            // A lower bound only: a timer never fires early, however busy the machine.
            #expect(took >= .milliseconds(300), "took \(took)")
        }
    }

    /// A listener bound to every address is asked on loopback, IPv6 literals in brackets.
    @Test(arguments: [
        ("0.0.0.0", "127.0.0.1"), ("", "127.0.0.1"), ("::", "[::1]"), ("::1", "[::1]"), ("10.1.2.3", "10.1.2.3"), ("localhost", "localhost"),
    ])
    func theAddressAsked(bound: String, asked: String) {
        let probe = HealthProbe(listener: ListenerAddress(host: bound, port: 8012), route: .live, timeout: .seconds(1))
        #expect(probe.url == "http://\(asked):8012/health/live")
    }
}
