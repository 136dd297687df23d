import ExposureCore
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Verification

@Suite struct TeleTANTests {
    @Test(arguments: TestDatabase.all)
    func anOfficerIssuesATeleTANThatRegistersOnce(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let response = try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"]))
            #expect(response.status == 201)
            let teleTAN = try #require(response.json["value"] as? String)
            #expect(Codes.isValidTeleTAN(teleTAN))
            let registered = try await h.register(teleTAN: teleTAN)
            #expect(registered.status == 201)
            try #require(try await h.register(teleTAN: teleTAN).status == 400)
            // teleTAN sessions are positive, as of their creation.
            let token = try #require(registered.json["registrationToken"] as? String)
            let result = try await h.testResult(token)
            #expect(result.status == 200)
            #expect(result.json["testResult"] as? Int == 2)
            #expect(result.json["sc"] as? Int == Int(h.clock.now().epochSeconds))
        }
    }

    @Test(arguments: TestDatabase.all)
    func testTeleTANsExpireAfterAnHourEventOnesAfterTwoDays(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let test = try await h.newTeleTAN(type: "TEST")
            let event = try await h.newTeleTAN(type: "EVENT")
            h.clock.advance(by: 3601)
            try #require(try await h.register(teleTAN: test).status == 400)
            try #require(try await h.register(teleTAN: event).status == 201)
            let late = try await h.newTeleTAN(type: "EVENT")
            h.clock.advance(by: 2 * 86400 + 1)
            try #require(try await h.register(teleTAN: late).status == 400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func tokensAreCheckedForSignatureExpiryAndRole(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try #require(try await h.createTeleTAN(token: nil).status == 401)
            try #require(try await h.createTeleTAN(token: "not.a.jwt").status == 401)
            let expired = try await h.officerToken(roles: ["c19hotline"], expiresIn: -120)
            try #require(try await h.createTeleTAN(token: expired).status == 401)
            let foreign = try await h.officerToken(roles: ["c19hotline"], key: ES256PrivateKey())
            try #require(try await h.createTeleTAN(token: foreign).status == 401)
            let noRole = try await h.officerToken(roles: ["offline_access"])
            let refused = try await h.createTeleTAN(token: noRole)
            #expect(refused.status == 401)
            #expect(refused.json["error"] as? String == "unauthorized")
            // EVENT needs its own role; TEST (explicit or default) needs c19hotline.
            let eventOnly = try await h.officerToken(roles: ["c19hotline_event"])
            try #require(try await h.createTeleTAN(token: eventOnly).status == 401)
            try #require(try await h.createTeleTAN(token: eventOnly, type: "TEST").status == 401)
            try #require(try await h.createTeleTAN(token: eventOnly, type: "EVENT").status == 201)
            let hotline = try await h.officerToken(roles: ["c19hotline"])
            try #require(try await h.createTeleTAN(token: hotline, type: "EVENT").status == 401)
            try #require(try await h.createTeleTAN(token: hotline, type: "OTHER").status == 400)
            try #require(try await h.rows("teletans") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func issuanceIsRateLimitedGlobally(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_RATE_LIMIT": "3", "TELETAN_RATE_WINDOW": "1h"]) { h in
            let token = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200)
            let before = Self.counters()
            for _ in 0..<3 { try #require(try await h.createTeleTAN(token: token).status == 201) }
            let limited = try await h.createTeleTAN(token: token)
            #expect(limited.status == 429)
            #expect(limited.json["error"] as? String == "rate_limited")
            // Other tests count too (one registry per process), so at least, not exactly.
            let after = Self.counters()
            #expect(after.issued >= before.issued + 3)
            #expect(after.issuanceLimited >= before.issuanceLimited + 1)
            h.clock.advance(by: 3601)
            try #require(try await h.createTeleTAN(token: token).status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func failedTeleTANRegistrationsAreThrottled(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_FAILURE_BURST": "3", "TELETAN_FAILURES_PER_HOUR": "60"]) { h in
            let random = SeededRandomSource(seed: 11)
            for _ in 0..<3 {
                try #require(try await h.register(teleTAN: Codes.teleTAN(using: random)).status == 400)
            }
            // The bucket is empty: even a valid teleTAN waits.
            let valid = try await h.newTeleTAN()
            let before = Self.counters()
            try #require(try await h.register(teleTAN: valid).status == 429)
            #expect(Self.counters().failuresLimited >= before.failuresLimited + 1)
            // GUID registrations are not affected.
            try #require(try await h.register(guid: VerificationHarness.hashedGUID()).status == 201)
            h.clock.advance(by: 60)
            try #require(try await h.register(teleTAN: valid).status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentRegistrationsOfOneTeleTANHaveOneWinner(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let teleTAN = try await h.newTeleTAN()
            let statuses = try await concurrently(50) { try await h.register(teleTAN: teleTAN).status }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 400 || $0 == 429 })
        }
    }

    @Test func rateLimitDecisions() {
        let limit = TeleTANRateLimit(limit: 10, window: .seconds(60))
        #expect(limit.decide(issuedInWindow: 0) == .allowed)
        #expect(limit.decide(issuedInWindow: 6) == .allowed)
        #expect(limit.decide(issuedInWindow: 7) == .allowedNearLimit)
        #expect(limit.decide(issuedInWindow: 9) == .allowedNearLimit)
        #expect(limit.decide(issuedInWindow: 10) == .refused)
    }

    /// The teleTAN counters of this process's registry.
    static func counters() -> (issued: Double, issuanceLimited: Double, failuresLimited: Double) {
        let text = PrometheusText.ofThisProcess()
        return (
            PrometheusText.count(in: text, name: "verification_teletans_issued_total", labels: ["type": "TEST"]),
            PrometheusText.count(in: text, name: "verification_rate_limited_total", labels: ["limit": "teletan_issuance"]),
            PrometheusText.count(in: text, name: "verification_rate_limited_total", labels: ["limit": "teletan_failures"])
        )
    }
}
