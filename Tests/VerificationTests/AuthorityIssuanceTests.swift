import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Verification
@testable import VerificationDomain

/// Issue #60, items 2 and 3: every officer's token names a health authority, and what the officer issues is scoped to
/// that authority's families and regions and counted against its own hour and day, in the transaction of the
/// officer's and everyone's counters.
@Suite struct AuthorityIssuanceTests {
    /// An identity provider's token, whose claim `groups` is a string or a list.
    struct ProviderClaims<Groups: Codable & Sendable>: JWTPayload {
        var exp: ExpirationClaim
        var iss: IssuerClaim
        var aud: AudienceClaim
        var sub: SubjectClaim
        var realm_access: OfficerClaims.RealmAccess
        var groups: Groups

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func providerToken(_ h: VerificationHarness, groups: some Codable & Sendable) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: h.officerKey)
        return try await keys.sign(ProviderClaims(
            exp: .init(value: h.clock.now().addingTimeInterval(300)), iss: .init(value: VerificationHarness.officerIssuer),
            aud: .init(value: [VerificationHarness.officerAudience]), sub: .init(value: "officer-1"), realm_access: .init(roles: ["c19hotline"]),
            groups: groups
        ))
    }

    @Test(arguments: TestDatabase.all)
    func theTokensAuthorityMustBeKnownAndEnabled(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-a")
            let ofA = try await h.officerToken(roles: ["c19hotline"], authority: "ha-a")
            #expect(try await h.createTeleTAN(token: ofA).status == 201)
            // The portal's tokens of today name no authority: they are the default authority's.
            #expect(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"])).status == 201)
            let unknown = try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"], authority: "nowhere"))
            Covers.status(401, of: "POST /version/v1/tan/teletan", unknown, error: "unknown_authority")
            let unknownCode = try await h.issueCode("COVIDSHIELD", token: try await h.officerToken(roles: ["c19hotline"], authority: "nowhere"))
            Covers.status(401, of: "POST /version/v1/codes", unknownCode, error: "unknown_authority")

            _ = try await h.authorities(["disable", "--id", "ha-a"])
            let disabled = try await h.createTeleTAN(token: ofA)
            Covers.status(401, of: "POST /version/v1/tan/teletan", disabled, error: "authority_disabled")
            try await h.issueCode("PROTEGO", token: ofA).expectError(401, "authority_disabled")
            #expect(try await h.rows("teletans") == 2)
            #expect(try await h.rows("one_time_codes") == 0)
            #expect(try await h.issuanceCount(scope: TeleTANRateLimit.globalScope) == 2)

            _ = try await h.authorities(["enable", "--id", "ha-a"])
            #expect(try await h.createTeleTAN(token: ofA).status == 201)
        }
    }

    /// `OFFICER_AUTHORITY_CLAIM=groups`: of the claim's values exactly one must name an authority; a token without the
    /// claim is the default authority's.
    @Test(arguments: TestDatabase.all)
    func anIdentityProvidersClaimNamesTheAuthority(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["OFFICER_AUTHORITY_CLAIM": "groups"]) { h in
            try await h.addAuthority("ha-a", perHour: 2)
            #expect(try await h.createTeleTAN(token: try await Self.providerToken(h, groups: ["staff", "ha-a"])).status == 201)
            #expect(try await h.createTeleTAN(token: try await Self.providerToken(h, groups: "ha-a")).status == 201)
            // Both were counted against ha-a.
            try await h.createTeleTAN(token: try await Self.providerToken(h, groups: ["ha-a"])).expectError(429, "authority_rate_limited")
            #expect(try await h.issuanceCount(scope: "authority-hour:ha-a") == 2)
            for groups in [["ha-a", "default"], ["staff"], []] {
                try await h.createTeleTAN(token: try await Self.providerToken(h, groups: groups)).expectError(401, "unknown_authority")
            }
            try await h.createTeleTAN(token: try await Self.providerToken(h, groups: 7)).expectError(401, "unknown_authority")
            // The claim `authority` comes first; a token with neither is the default's.
            #expect(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"], authority: "default")).status == 201)
            #expect(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"])).status == 201)
            #expect(try await h.rows("teletans") == 4)
        }
    }

    @Test(arguments: TestDatabase.all)
    func withoutADefaultAuthorityATokenMustNameOne(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["OFFICER_DEFAULT_AUTHORITY": ""]) { h in
            try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"])).expectError(401, "unknown_authority")
            #expect(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"], authority: "default")).status == 201)
        }
    }

    /// An officer of an authority that may not issue a family, or not for the code's region, is refused and counted
    /// nowhere.
    @Test(arguments: TestDatabase.all)
    func anAuthorityIssuesOnlyItsFamiliesForItsRegions(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("quebec", families: "covidshield", regions: "QC")
            try await h.addAuthority("ontario", families: "covidshield,protego", regions: "ON,PL")
            let quebec = try await h.officerToken(roles: ["c19hotline", "c19hotline_event"], subject: "q", authority: "quebec")
            let teleTAN = try await h.createTeleTAN(token: quebec)
            Covers.status(400, of: "POST /version/v1/tan/teletan", teleTAN, error: "family_not_allowed")
            try await h.createTeleTAN(token: quebec, type: "EVENT").expectError(400, "family_not_allowed")
            let proteGO = try await h.issueCode("PROTEGO", token: quebec)
            Covers.status(400, of: "POST /version/v1/codes", proteGO, error: "family_not_allowed")
            // COVIDSHIELD codes are issued for the deployment's region, ON, which is not Quebec's.
            let region = try await h.issueCode("COVIDSHIELD", token: quebec)
            Covers.status(400, of: "POST /version/v1/codes", region, error: "region_not_allowed")
            #expect(try await h.rows("teletans") == 0)
            #expect(try await h.rows("one_time_codes") == 0)
            #expect(try await h.issuanceCount(scope: TeleTANRateLimit.officerScope(issuer: VerificationHarness.officerIssuer, subject: "q")) == 0)
            #expect(try await h.issuanceCount(scope: TeleTANRateLimit.globalScope) == 0)

            let ontario = try await h.officerToken(roles: ["c19hotline"], subject: "o", authority: "ontario")
            #expect(try await h.issueCode("COVIDSHIELD", token: ontario).status == 201)
            #expect(try await h.issueCode("PROTEGO", token: ontario).status == 201)
            try await h.createTeleTAN(token: ontario).expectError(400, "family_not_allowed")
            #expect(try await h.rows("one_time_codes") == 2)
        }
    }

    /// Fifty concurrent issuances of an authority's officers at its limit of ten an hour: exactly ten, whichever
    /// connection each took; the forty others are 429 `authority_rate_limited` and count nowhere.
    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentIssuancesOfOneAuthorityIssueExactlyItsHourlyLimit(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-a", perHour: 10)
            let token = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200, authority: "ha-a")
            let answers = try await h.race { h in
                let response = try await h.createTeleTAN(token: token)
                return (response.status, response.json["error"] as? String)
            }
            #expect(answers.filter { $0.0 == 201 }.count == 10)
            let refused = answers.filter { $0.0 == 429 }
            #expect(refused.count == 40 && refused.allSatisfy { $0.1 == "authority_rate_limited" })
            #expect(try await h.rows("teletans") == 10)
            #expect(try await h.issuanceCount(scope: "authority-hour:ha-a") == 10)
            #expect(try await h.issuanceCount(scope: TeleTANRateLimit.globalScope) == 10)
            // Another authority, and the default one, still issue.
            #expect(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"])).status == 201)
            // The next hour ha-a issues again.
            h.clock.advance(by: 3600)
            #expect(try await h.createTeleTAN(token: token).status == 201)
        }
    }

    /// teleTANs and codes count together against the authority's day, which outlasts its hours.
    @Test(arguments: TestDatabase.all)
    func teleTANsAndCodesCountTogetherAgainstTheAuthoritysDay(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-a", perDay: 3)
            let token = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200, authority: "ha-a")
            #expect(try await h.createTeleTAN(token: token).status == 201)
            #expect(try await h.issueCode("COVIDSHIELD", token: token).status == 201)
            #expect(try await h.issueCode("PROTEGO", token: token).status == 201)
            let limited = try await h.issueCode("PROTEGO", token: token)
            Covers.status(429, of: "POST /version/v1/codes", limited, error: "authority_rate_limited")
            h.clock.advance(by: 3600)
            let stillLimited = try await h.createTeleTAN(token: token)
            Covers.status(429, of: "POST /version/v1/tan/teletan", stillLimited, error: "authority_rate_limited")
            #expect(try await h.rows("teletans") == 1)
            #expect(try await h.rows("one_time_codes") == 2)
        }
    }

    /// The daily statistics count teleTANs and codes per authority, officers' and issuers' codes together; refused
    /// requests count nothing.
    @Test(arguments: TestDatabase.all)
    func issuanceIsCountedPerAuthorityInTheDailyStatistics(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: StatisticsTests.settings) { h in
            try await h.addAuthority("ha-a", families: "cwa,protego")
            let ofA = try await h.officerToken(roles: ["c19hotline"], authority: "ha-a")
            try #require(try await h.createTeleTAN(token: ofA).status == 201)
            try #require(try await h.issueCode("PROTEGO", token: ofA).status == 201)
            try #require(try await h.issueCode("COVIDSHIELD", token: ofA).status == 400)
            try #require(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"])).status == 201)
            let issuer = try await h.addIssuer("gis-pl", kind: "protego", authority: "ha-a")
            try #require(try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":2,"duration":1800}}"#, token: issuer).status == 200)
            let today = StatisticsDay(of: h.clock.now())
            let counts = try await StatisticsTests.eventually(h, from: today, to: today) {
                $0["codes_issued_by_authority/ha-a"] == 3 && $0["teletans_issued_by_authority/ha-a"] == 1 && $0["teletans_issued_by_authority/default"] == 1
            }
            #expect(counts["teletans_issued_by_authority/ha-a"] == 1 && counts["teletans_issued_by_authority/default"] == 1)
            #expect(counts["codes_issued_by_authority/ha-a"] == 3 && counts["codes_issued_by_authority/default"] == nil)
        }
    }

    /// The first two steps of each family's funnel on the portal's statistics page: codes issued by family (officers'
    /// and issuers' alike), and codes redeemed by family, an app-side figure served for finished days only; a wrong
    /// code and a second redemption count nothing.
    @Test(arguments: TestDatabase.all)
    func codesAreCountedIssuedAndRedeemedPerFamily(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: StatisticsTests.settings) { h in
            let officer = try await h.officerToken(roles: ["c19hotline"])
            let pin = try #require(try await h.issueCode("PROTEGO", token: officer).json["code"] as? String)
            let claim = try #require(try await h.issueCode("COVIDSHIELD", token: officer).json["code"] as? String)
            let issuer = try await h.addIssuer("gis-pl", kind: "protego")
            try #require(try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":2,"duration":1800}}"#, token: issuer).status == 200)
            try #require(try await h.redeemCode("PROTEGO", pin).status == 200)
            try #require(try await h.redeemCode("PROTEGO", pin).status == 404)
            try #require(try await h.redeemCode("COVIDSHIELD", claim).status == 200)
            try #require(try await h.redeemCode("COVIDSHIELD", claim == "00000000" ? "00000001" : "00000000").status == 404)
            let today = StatisticsDay(of: h.clock.now())
            let issued = try await StatisticsTests.eventually(h, from: today, to: today) { $0["codes_issued/protego"] == 3 && $0["codes_issued/covidshield"] == 1 }
            #expect(issued["codes_issued/protego"] == 3 && issued["codes_issued/covidshield"] == 1)
            #expect(issued["codes_redeemed/protego"] == nil, "app-side: not served for today")
            h.clock.advance(by: 86400)
            // A flush may store one family's count before the other's: wait for both (more would never match).
            let finished = try await StatisticsTests.eventually(h, from: today, to: today) {
                $0["codes_redeemed/protego"] == 1 && $0["codes_redeemed/covidshield"] == 1
            }
            #expect(finished["codes_redeemed/protego"] == 1 && finished["codes_redeemed/covidshield"] == 1)
        }
    }

    @Test func theSettingsHaveTheirDefaultsAndAreChecked() throws {
        func configuration(_ extra: [String: String]) throws -> VerificationConfiguration {
            try VerificationConfiguration(Settings(arguments: ["test"], environment: ["TELETAN_HASH_KEYS": TestServices.teleTANHashKeys].merging(extra) { $1 }))
        }
        #expect(try configuration([:]).officerAuthorities == OfficerAuthorityPolicy(claim: nil, defaultAuthority: "default"))
        #expect(try configuration(["OFFICER_DEFAULT_AUTHORITY": ""]).officerAuthorities.defaultAuthority == nil)
        #expect(try configuration(["OFFICER_DEFAULT_AUTHORITY": "ha-1", "OFFICER_AUTHORITY_CLAIM": "groups"]).officerAuthorities
            == OfficerAuthorityPolicy(claim: "groups", defaultAuthority: "ha-1"))
        #expect(throws: ConfigurationError.self) { try configuration(["OFFICER_DEFAULT_AUTHORITY": "Not An Id"]) }
    }

    @Test func aClaimsValuesNameExactlyOneAuthority() {
        let policy = OfficerAuthorityPolicy(claim: "groups", defaultAuthority: nil)
        #expect(policy.naming(authorityClaim: "a", configuredClaim: ["b"]) == .named("a"))
        #expect(policy.naming(authorityClaim: nil, configuredClaim: ["b", "c"]) == .oneOf(["b", "c"]))
        #expect(policy.naming(authorityClaim: nil, configuredClaim: nil) == .unnamed)
        #expect(OfficerAuthorityPolicy().naming(authorityClaim: nil, configuredClaim: nil) == .named("default"))
        #expect(AuthorityNaming.oneOf(["staff", "b"]).choose(among: ["b"]) == "b")
        #expect(AuthorityNaming.oneOf(["a", "b"]).choose(among: ["a", "b"]) == nil)
        #expect(AuthorityNaming.unnamed.choose(among: []) == nil)
        #expect(AuthorityID.isWellFormed("ha-1") && AuthorityID.isWellFormed(String(repeating: "a", count: 32)))
        for bad in ["", "-a", "A", "a_b", "a.b", String(repeating: "a", count: 33), "ä"] { #expect(!AuthorityID.isWellFormed(bad), "\(bad)") }
    }
}
