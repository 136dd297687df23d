import ExposureCore
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Verification
@testable import VerificationDomain

/// Attacks on teleTAN issuance with officers' tokens: tokens meant for someone else, one officer using up everyone's
/// allowance, and concurrent requests racing past the limits.
@Suite struct OfficerTokenTests {
    @Test(arguments: TestDatabase.all)
    func tokensOfAnotherIssuerOrAudienceOrWithoutAudienceAreRefused(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let refused = [
                try await h.officerToken(roles: ["c19hotline"], issuer: "https://id.example/realms/other"),
                try await h.officerToken(roles: ["c19hotline"], issuer: nil),
                try await h.officerToken(roles: ["c19hotline"], audience: ["account"]),
                try await h.officerToken(roles: ["c19hotline"], audience: nil),
                try await h.officerToken(roles: ["c19hotline"], subject: nil),
            ]
            for token in refused {
                let response = try await h.createTeleTAN(token: token)
                response.expectError(401, "unauthorized")
            }
            #expect(try await h.rows("teletans") == 0)
            let right = try await h.officerToken(roles: ["c19hotline"], audience: ["account", VerificationHarness.officerAudience])
            #expect(try await h.createTeleTAN(token: right).status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func oneOfficerAtItsLimitLeavesTheOthersTheirTeleTANs(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_OFFICER_RATE_LIMIT": "2", "TELETAN_RATE_WINDOW": "1h"]) { h in
            let anna = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200, subject: "anna")
            let ben = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200, subject: "ben")
            for _ in 0..<2 { try #require(try await h.createTeleTAN(token: anna).status == 201) }
            // Sent straight to the internal listener, past the portal: verification counts by the token's subject.
            let limited = try await h.createTeleTAN(token: anna)
            limited.expectError(429, "rate_limited")
            #expect(try await h.createTeleTAN(token: ben).status == 201)
            #expect(try await h.rows("teletans") == 3)
            h.clock.advance(by: 3600)
            #expect(try await h.createTeleTAN(token: anna).status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentIssuancesAtALimitOfTenIssueExactlyTen(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_RATE_LIMIT": "10"]) { h in
            // Fifty officers, so that only the global limit decides.
            var tokens: [String] = []
            for n in 0..<50 { tokens.append(try await h.officerToken(roles: ["c19hotline"], subject: "officer-\(n)")) }
            let statuses = try await withManyConnections(50) { http in
                let issuing = h.internal.using(http)
                return try await concurrently(over: tokens) { token in
                    try await issuing.request(.POST, "/version/v1/tan/teletan", headers: [("Authorization", "Bearer \(token)")]).status
                }
            }
            #expect(try await h.rows("teletans") == 10)
            #expect(statuses.filter { $0 == 201 }.count == 10)
            #expect(statuses.filter { $0 == 429 }.count == 40)
        }
    }

    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentIssuancesOfOneOfficerStopAtItsLimit(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_OFFICER_RATE_LIMIT": "5"]) { h in
            let token = try await h.officerToken(roles: ["c19hotline"])
            let statuses = try await withManyConnections(50) { http in
                let issuing = h.internal.using(http)
                return try await concurrently(50) {
                    try await issuing.request(.POST, "/version/v1/tan/teletan", headers: [("Authorization", "Bearer \(token)")]).status
                }
            }
            #expect(try await h.rows("teletans") == 5)
            #expect(statuses.filter { $0 == 201 }.count == 5)
            // The refused requests counted in neither counter: everyone else still has the whole global allowance.
            #expect(try await h.issuanceCount(scope: TeleTANRateLimit.globalScope) == 5)
        }
    }

    @Test func everyKeySourceNeedsAnIssuerAndAnAudience() throws {
        func configuration(_ variables: [String: String]) throws -> VerificationConfiguration {
            try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(variables) { $1 }))
        }
        #expect(throws: ConfigurationError(variable: "JWT_JWKS_ISSUER", reason: "is required (or JWT_JWKS_ISSUER_FILE, the path of a file holding it)")) {
            try configuration(["JWT_JWKS_URL": "https://id.example/certs", "JWT_JWKS_AUDIENCE": "verification"])
        }
        #expect(throws: ConfigurationError.self) {
            try configuration(["JWT_JWKS_URL": "https://id.example/certs", "JWT_JWKS_ISSUER": "https://id.example"])
        }
        for entry in ["/keys/portal.pem", "/keys/portal.pem|exposuresuite-portal", "/keys/portal.pem||verification", "/keys/portal.pem|a|b|c"] {
            #expect(throws: ConfigurationError.self) { try configuration(["JWT_PUBLIC_KEY_FILES": entry]) }
        }
        // The old global settings would apply one issuer to every source: refused with what replaces them.
        #expect(throws: ConfigurationError.self) { try configuration(["JWT_ISSUER": "https://id.example"]) }
        #expect(throws: ConfigurationError.self) { try configuration(["JWT_AUDIENCE": "verification"]) }
        // A well-formed entry whose file is not there stops start-up too, instead of refusing every teleTAN later.
        #expect(throws: ConfigurationError.self) {
            try configuration(["JWT_PUBLIC_KEY_FILES": "/keys/portal.pem|exposuresuite-portal|exposuresuite-verification"])
        }
        let key = FileManager.default.temporaryDirectory.appendingPathComponent("portal-\(UUID().uuidString).pub.pem")
        try ES256PrivateKey().publicKey.pemRepresentation.write(to: key, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: key) }
        #expect(try configuration(["JWT_PUBLIC_KEY_FILES": "\(key.path)|exposuresuite-portal|exposuresuite-verification"]).signingKeys.publicKeyFiles
            == [.init(path: key.path, binding: TokenBinding(issuer: "exposuresuite-portal", audience: "exposuresuite-verification"))])
    }

    @Test func windowsAreAlignedAndOfficersCountedUnderAHash() {
        let limit = TeleTANRateLimit(limit: 10, perOfficer: 2, window: .seconds(3600))
        #expect(limit.windowStart(now: Date(timeIntervalSince1970: 7_199)) == 3_600)
        #expect(limit.windowStart(now: Date(timeIntervalSince1970: 7_200)) == 7_200)
        let scope = TeleTANRateLimit.officerScope(issuer: "https://id.example", subject: "anna")
        #expect(!scope.contains("anna"))
        #expect(scope != TeleTANRateLimit.officerScope(issuer: "https://other.example", subject: "anna"))
    }
}
