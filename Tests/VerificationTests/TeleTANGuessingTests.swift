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

    /// Guesses from every address of `addresses`, `each` per address, all in flight at once over 64 connections,
    /// through the harness's listener as the trusted proxy (`X-Forwarded-For` names the client).
    static func guessAtFullSpeed(_ h: VerificationHarness, from addresses: [String], each: Int, seed: UInt64) async throws -> [Int] {
        let guesses = Self.guesses(addresses.count * each, seed: seed)
        let requests = guesses.enumerated().map { (guess: $0.element, address: addresses[$0.offset % addresses.count]) }
        return try await withManyConnections(64) { http in
            let app = h.app.using(http)
            return try await concurrently(over: requests) { request in
                try await app.postJSON(
                    "/version/v1/registrationToken", ["key": request.guess, "keyType": "TELETAN"],
                    headers: [("cwa-fake", "0"), ("X-Forwarded-For", request.address)]
                ).status
            }
        }
    }

    /// The attack of issue #58: with the defaults, 10 wrong guesses from each of 10 addresses emptied the one bucket
    /// of all clients, and a patient's real teleTAN from an eleventh address was a 429. Now 250 addresses in ten
    /// /24s of 127.0.0.0/8 guessing at full speed empty the shared bucket, but every one of their networks has a
    /// wrong guess against it, and a patient of another /24 is served from the reserve: 201.
    @Test(arguments: TestDatabase.all)
    func twoHundredFiftyAddressesInTenNetworksLockOutNobodyElsewhere(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TRUSTED_PROXIES": "127.0.0.1"]) { h in
            let attackers = (0..<250).map { "127.1.\($0 % 10).\($0 / 10 + 1)" }
            let statuses = try await Self.guessAtFullSpeed(h, from: attackers, each: 4, seed: 51)
            // Each /24 got at most its network's burst (20); all together the shared burst (100) and at most one
            // guess per network from the reserve.
            let lookups = statuses.filter { $0 == 400 }.count
            #expect(lookups >= 100 && lookups <= 110)
            #expect(statuses.filter { $0 == 429 }.count == statuses.count - lookups)
            // The attackers keep going, and keep getting 429s.
            let again = try await Self.guessAtFullSpeed(h, from: attackers, each: 1, seed: 52)
            #expect(again.allSatisfy { $0 == 429 })
            // The price, and the proof that the shared bucket still bounds everyone: a patient at a new address of an
            // attacker's /24 waits, its network has wrong guesses against it.
            let neighbour = try await h.app.postJSON(
                "/version/v1/registrationToken", ["key": try await h.newTeleTAN(), "keyType": "TELETAN"],
                headers: [("cwa-fake", "0"), ("X-Forwarded-For", "127.1.3.200")]
            )
            #expect(neighbour.status == 429)
            let teleTAN = try await h.newTeleTAN()
            let patient = try await h.app.postJSON(
                "/version/v1/registrationToken", ["key": teleTAN, "keyType": "TELETAN"],
                headers: [("cwa-fake", "0"), ("X-Forwarded-For", "127.200.0.1")]
            )
            #expect(patient.status == 201)
        }
    }

    /// The same from one IPv6 site: 250 /64s of one /48, each its own source but all one network, whose allowance is
    /// a fifth of the shared one. Patients of another /48, and of IPv4, are not even served from the reserve.
    @Test(arguments: TestDatabase.all)
    func twoHundredFiftySubnetsOfOneSiteLockOutNobodyElsewhere(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TRUSTED_PROXIES": "127.0.0.1"]) { h in
            let attackers = (0..<250).map { "2001:db8:7:\(String($0, radix: 16))::1" }
            let statuses = try await Self.guessAtFullSpeed(h, from: attackers, each: 4, seed: 61)
            #expect(statuses.filter { $0 == 400 }.count == 20)
            #expect(statuses.filter { $0 == 429 }.count == 980)
            for address in ["2001:db8:8::1", "203.0.113.9"] {
                let teleTAN = try await h.newTeleTAN()
                let patient = try await h.app.postJSON(
                    "/version/v1/registrationToken", ["key": teleTAN, "keyType": "TELETAN"],
                    headers: [("cwa-fake", "0"), ("X-Forwarded-For", address)]
                )
                #expect(patient.status == 201)
            }
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

    @Test func theSourceAllowanceMustStayBelowItsNetworksAndThatBelowTheGlobalOne() {
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TELETAN_SOURCE_FAILURE_BURST": "100"]) { $1 }))
        }
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TELETAN_SOURCE_FAILURES_PER_HOUR": "601"]) { $1 }))
        }
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TELETAN_NETWORK_FAILURE_BURST": "100"]) { $1 }))
        }
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["ONE_TIME_CODE_NETWORK_FAILURES_PER_HOUR": "61"]) { $1 }))
        }
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TRUSTED_PROXIES": "10.0.0.0/8, proxy.internal"]) { $1 }))
        }
    }
}
