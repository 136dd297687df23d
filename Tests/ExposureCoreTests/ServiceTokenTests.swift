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
        let permissions = CallerPermissions(["submission": ["/internal"], "portal": ["/internal"]])
        let reached = Counter()
        try await HTTPTests().withListener(callers: (callers, permissions), configure: { router in
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

    /// The attack: a leaked token of one service (the portal's, say) used on a route only another service needs. The
    /// caller is known, but its row of the table does not name the route: 403 before the route (or its body) is read.
    @Test func aCallerReachesOnlyTheRoutesItsRowNames() async throws {
        let callers = ServiceTokens(["submission": Self.submission, "portal": Self.portal])
        let permissions = CallerPermissions(["submission": ["/spend"], "portal": ["/issue"]])
        let reached = Counter()
        try await HTTPTests().withListener(callers: (callers, permissions), configure: { router in
            router.post("/spend") { _, _ -> String in
                reached.add()
                return "spent"
            }
            router.post("/issue") { _, _ -> String in
                reached.add()
                return "issued"
            }
        }) { client in
            let bare = TestHTTPClient(port: client.port)
            let asPortal = try await bare.postJSON("/spend", ["x": "y"], headers: [(ServiceTokens.header, Self.portal)])
            asPortal.expectError(403, "forbidden_caller")
            let asSubmission = try await bare.postJSON("/issue", ["x": "y"], headers: [(ServiceTokens.header, Self.submission)])
            asSubmission.expectError(403, "forbidden_caller")
            #expect(reached.value == 0)
            // Refused before the body is read: a body far over the listener's limit is no 413 for a forbidden caller.
            let large = try await bare.postRaw("/spend", Array(repeating: 0x20, count: 1000), headers: [(ServiceTokens.header, Self.portal)])
            large.expectError(403, "forbidden_caller")
            #expect(try await bare.postJSON("/spend", ["x": "y"], headers: [(ServiceTokens.header, Self.submission)]).status == 200)
            #expect(try await bare.postJSON("/issue", ["x": "y"], headers: [(ServiceTokens.header, Self.portal)]).status == 200)
            #expect(reached.value == 2)
            // A path outside the table is no route here, whoever asks; without a token it is still a 401.
            #expect(try await bare.get("/elsewhere", headers: [(ServiceTokens.header, Self.portal)]).status == 404)
            try await bare.get("/elsewhere").expectError(401, "unknown_caller")
        }
    }

    @Test func theTablesNameOnlyTheServicesThatCallEachRoute() {
        typealias Caller = CallerPermissions.Caller
        #expect(CallerPermissions.verification.routes[Caller.portal] == [
            "/version/v1/tan/teletan", "/version/v1/codes", "/version/v1/codes/issued", "/version/v1/codes/issued/expire",
            "/version/v1/authorities", "/version/v1/authorities/{authorityId}", "/version/v1/issuers", "/version/v1/issuers/{issuerName}",
            "/version/v1/signing-keys", "/version/v1/signing-keys/{keyId}",
        ])
        #expect(CallerPermissions.verification.callers(of: "/version/v1/codes/issued/expire") == [Caller.portal])
        #expect(CallerPermissions.verification.callers(of: "/version/v1/tans/reserve") == [Caller.submission])
        #expect(CallerPermissions.verification.callers(of: "/version/v1/codes/redeem") == [Caller.submission])
        #expect(CallerPermissions.verification.routes[Caller.verification] == nil)
        #expect(CallerPermissions.testResult.routes.keys.sorted() == [Caller.portal, Caller.verification])
        #expect(CallerPermissions.testResult.routes[Caller.portal] == ["/version/v1/lab-credentials", "/version/v1/lab-credentials/{labId}/{fingerprint}"])
        #expect(CallerPermissions.testResult.callers(of: "/api/v1/app/result") == [Caller.verification])
        #expect(CallerPermissions.testResult.callers(of: "/version/v1/lab-credentials/lab-1/abcdef012345") == [Caller.portal])
        // The second token of a rotation (docs/operations.md) is its service's; another name is nobody's.
        #expect(CallerPermissions.verification.allows("submission-next", path: "/version/v1/tans/reserve"))
        #expect(!CallerPermissions.verification.allows("submissionx", path: "/version/v1/tans/reserve"))
        #expect(!CallerPermissions.verification.allows("portal-next", path: "/version/v1/tans/reserve"))
        // However a path is spelled, it is judged as the route a router could match it to.
        for spelling in ["/version/v1/tans/reserve/", "//version/v1/tans/reserve", "/version/v1/tans/%72eserve", "/VERSION/v1/tans/reserve"] {
            #expect(CallerPermissions.verification.guards(spelling))
            #expect(!CallerPermissions.verification.allows(Caller.portal, path: spelling))
            #expect(CallerPermissions.verification.allows(Caller.submission, path: spelling))
        }
        #expect(!CallerPermissions.verification.guards("/version/v1/registrationToken"))
    }

    /// A route template's parameter (`{authorityId}`) is any one segment: the route is guarded however the segment is
    /// spelled, an encoded `/` inside it included, and only its callers may call it.
    @Test func aTemplatedRouteIsGuardedHoweverItIsSpelled() {
        typealias Caller = CallerPermissions.Caller
        let table = CallerPermissions.verification
        for spelling in [
            "/version/v1/authorities/ha-1", "/version/v1/authorities/ha-1/", "//version/v1/authorities/ha-1", "/Version/V1/Authorities/HA-1",
            "/version/v1/authorities/%68a-1", "/version/v1/authorities/a%2Fb", "/version/v1/%61uthorities/{authorityId}",
        ] {
            #expect(table.guards(spelling), "\(spelling)")
            #expect(table.allows(Caller.portal, path: spelling), "\(spelling)")
            #expect(!table.allows(Caller.submission, path: spelling), "\(spelling)")
            #expect(table.callers(of: spelling) == [Caller.portal], "\(spelling)")
        }
        // A segment more or less is another path: the listener's 404.
        #expect(!table.guards("/version/v1/authorities/ha-1/officers"))
        #expect(table.guards("/version/v1/authorities"))
        #expect(!table.allows(Caller.submission, path: "/version/v1/authorities"))
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
