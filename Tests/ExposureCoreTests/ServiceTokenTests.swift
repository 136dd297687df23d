import ExposureCore
import ExposureTestSupport
import Foundation
import Hummingbird
import Testing

/// Internal listeners answer only the services configured for them (`ServiceTokens`).
@Suite struct ServiceTokenTests {
    static let submission = String(repeating: "s", count: 40)
    static let portal = String(repeating: "p", count: 40)

    /// The attack: a request to an internal route from anyone who can reach the listener. Without the middleware it
    /// was answered; now it is a 401 unless it carries a configured caller's token.
    @Test func anInternalRouteAnswersOnlyConfiguredCallers() async throws {
        let callers = ServiceTokens(["submission": Self.submission, "portal": Self.portal])
        let reached = Counter()
        try await HTTPTests().withListener(callers: callers, configure: { router in
            router.post("/internal") { _, _ -> String in
                reached.add()
                return "done"
            }
        }) { client in
            let bare = TestHTTPClient(port: client.port)
            let anonymous = try await bare.postJSON("/internal", [String: String]())
            anonymous.expectError(401, "unknown_caller")
            let guessed = try await bare.postJSON("/internal", [String: String](), headers: [(ServiceTokens.header, Self.submission + "x")])
            guessed.expectError(401, "unknown_caller")
            let empty = try await bare.postJSON("/internal", [String: String](), headers: [(ServiceTokens.header, "")])
            empty.expectError(401, "unknown_caller")
            #expect(reached.value == 0)
            for token in [Self.submission, Self.portal] {
                let answer = try await bare.postJSON("/internal", [String: String](), headers: [(ServiceTokens.header, token)])
                #expect(answer.status == 200)
            }
            #expect(reached.value == 2)
            // Load balancers and callers' readiness checks ask whether the process runs, without a token.
            #expect(try await bare.get("/health/live").status == 200)
        }
    }

    @Test func tokensAreReadFromTheirSettingAndRefusedWhenWeak() throws {
        func parse(_ text: String?) throws -> ServiceTokens {
            try ServiceTokens(Settings(arguments: ["test"], environment: text.map { ["INTERNAL_API_TOKENS": $0] } ?? [:]))
        }
        let tokens = try parse("submission=\(Self.submission), portal = \(Self.portal)")
        #expect(tokens.callers == ["portal", "submission"])
        #expect(tokens.caller(presenting: Self.portal) == "portal")
        #expect(tokens.caller(presenting: Self.portal.uppercased()) == nil)
        #expect(throws: ConfigurationError.self) { try parse(nil) }
        #expect(throws: ConfigurationError.self) { try parse("submission=short") }
        #expect(throws: ConfigurationError.self) { try parse(Self.submission) }
        #expect(throws: ConfigurationError.self) { try parse("a=\(Self.submission),a=\(Self.portal)") }
        #expect(throws: ConfigurationError.self) { try parse("a=\(Self.submission) with spaces") }
        let caller = Settings(arguments: ["test"], environment: ["VERIFICATION_API_TOKEN": "too-short"])
        #expect(throws: ConfigurationError.self) { try ServiceTokens.callerToken(caller, variable: "VERIFICATION_API_TOKEN") }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
