import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification

/// Attacks on teleTAN registration: guessing faster than the limits allow, and locking other people out.
@Suite struct TeleTANGuessingTests {
    /// Wrong teleTANs with a valid check character, which pass the form check and cost a lookup.
    static func guesses(_ count: Int, seed: UInt64) -> [String] {
        let random = SeededRandomSource(seed: seed)
        return (0..<count).map { _ in Codes.teleTAN(using: random) }
    }

    @Test(arguments: TestDatabase.all)
    func aConcurrentBurstAfterOneRefillGetsExactlyOneLookup(kind: TestDatabase) async throws {
        let limits = ["TELETAN_SOURCE_FAILURE_BURST": "3", "TELETAN_SOURCE_FAILURES_PER_HOUR": "60"]
        try await VerificationHarness.run(on: kind, environment: limits) { h in
            for guess in Self.guesses(3, seed: 21) { try #require(try await h.register(teleTAN: guess).status == 400) }
            try #require(try await h.register(teleTAN: Self.guesses(1, seed: 22)[0]).status == 429)
            h.clock.advance(by: 60)
            // 100 guesses in flight at once over 100 connections: the one token refilled pays for one lookup
            // (a refused lookup is a 400 invalid_teletan); every other guess is refused before any lookup.
            let statuses = try await withManyConnections(100) { http in
                let app = h.app.using(http)
                return try await concurrently(over: Self.guesses(100, seed: 23)) { guess in
                    try await app.postJSON("/version/v1/registrationToken", ["key": guess, "keyType": "TELETAN"], headers: [("cwa-fake", "0")]).status
                }
            }
            #expect(statuses.filter { $0 == 400 }.count == 1)
            #expect(statuses.filter { $0 == 429 }.count == 99)
        }
    }

    @Test(arguments: TestDatabase.all)
    func anAttackerAtFullSpeedLocksOutNobodyElse(kind: TestDatabase) async throws {
        // The defaults (10 per source, 100 for everyone); the harness's listener is the trusted proxy here.
        try await VerificationHarness.run(on: kind, environment: ["TRUSTED_PROXIES": "127.0.0.1"]) { h in
            let attacker = [("cwa-fake", "0"), ("X-Forwarded-For", "198.51.100.7")]
            let statuses = try await withManyConnections(64) { http in
                let app = h.app.using(http)
                return try await concurrently(over: Self.guesses(300, seed: 31)) { guess in
                    try await app.postJSON("/version/v1/registrationToken", ["key": guess, "keyType": "TELETAN"], headers: attacker).status
                }
            }
            #expect(statuses.filter { $0 == 400 }.count == 10)
            #expect(statuses.filter { $0 == 429 }.count == 290)
            // The attacker keeps going; a patient elsewhere registers the teleTAN an officer gave them.
            try #require(try await h.app.postJSON("/version/v1/registrationToken", ["key": Self.guesses(1, seed: 32)[0], "keyType": "TELETAN"], headers: attacker).status == 429)
            let teleTAN = try await h.newTeleTAN()
            let patient = try await h.app.postJSON(
                "/version/v1/registrationToken", ["key": teleTAN, "keyType": "TELETAN"],
                headers: [("cwa-fake", "0"), ("X-Forwarded-For", "203.0.113.9")]
            )
            #expect(patient.status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aForwardedForHeaderFromAnUntrustedPeerDoesNotMakeANewSource(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            var statuses: [Int] = []
            for (n, guess) in Self.guesses(20, seed: 41).enumerated() {
                let headers = [("cwa-fake", "0"), ("X-Forwarded-For", "198.51.100.\(n)")]
                statuses.append(try await h.app.postJSON("/version/v1/registrationToken", ["key": guess, "keyType": "TELETAN"], headers: headers).status)
            }
            #expect(statuses.filter { $0 == 400 }.count == 10)
            #expect(statuses.filter { $0 == 429 }.count == 10)
        }
    }

    @Test func theSourceAllowanceMustStayBelowTheGlobalOne() {
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TELETAN_SOURCE_FAILURE_BURST": "100"]) { $1 }))
        }
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TELETAN_SOURCE_FAILURES_PER_HOUR": "601"]) { $1 }))
        }
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TRUSTED_PROXIES": "10.0.0.0/8, proxy.internal"]) { $1 }))
        }
    }
}
