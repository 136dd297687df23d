import ExposureCore
import ExposureNaCl
import ExposureProtocol
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield
@testable import SubmissionDomain

/// `POST /claim-key` over real HTTP on both databases, codes redeemed at verification's stand-in (acceptance 2–4).
@Suite struct CovidShieldClaimTests {
    @Test(arguments: TestDatabase.all)
    func theSheetsClaimIsGrantedAPairOfThirtyTwoBytes(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            harness.verification.issueCode("12345678")
            let response = try await harness.claimKey(CovidShieldWire.bytes(
                "0a083132333435363738 1220ecbdc1e65e50aa5d18eed343987b3049e0b29f3d66994938a94aeba61f3f8a14"))
            Covers.status(200, of: "POST /claim-key", response)
            let answer = try Covidshield_KeyClaimResponse(serializedBytes: response.body)
            #expect(!answer.hasError)
            #expect(answer.serverPublicKey.count == 32)
            #expect(response.body.prefix(2) == [0x12, 0x20] && response.body.count == 34)
            // The secret half is stored sealed: the row holds no 32 bytes whose public key is the one answered.
            let sealed = try await harness.database.withConnection { connection in
                try await connection.raw("SELECT sealed_secret_key, region, valid_until, keys_remaining FROM covidshield_key_pairs").all()
            }
            #expect(sealed.count == 1)
            let stored = try sealed[0].decode(column: "sealed_secret_key", as: Data.self)
            #expect(stored.count == 12 + 32 + 16)
            #expect(try SecretSealer(key: CovidShieldWire.encryptionKey).open(Array(stored), belongingTo: Array(answer.serverPublicKey)).count == 32)
            #expect(try sealed[0].decode(column: "region", as: String.self) == "ON")
            // Issued on 2020-05-20: alive until UTC midnight + 15 days.
            #expect(try sealed[0].decode(column: "valid_until", as: Int64.self) == CovidShieldWire.midnight + 15 * 86_400)
            #expect(try sealed[0].decode(column: "keys_remaining", as: Int.self) == 28)
        }
    }

    /// What submission tells verification about the phone behind a claim: two keyed hashes (its address, its network),
    /// never the address; one network's phones share the second, and another network has its own.
    @Test(arguments: TestDatabase.all)
    func thePhonesOriginIsPassedOnAsKeyedHashesOnly(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind, environment: ["TRUSTED_PROXIES": "127.0.0.1"]) { harness in
            for (n, address) in ["198.51.100.7", "198.51.100.8", "203.0.113.9"].enumerated() {
                let app = try CryptoBox.keyPair(using: SystemRandomSource())
                let claim = try await harness.client.postRaw(
                    "/claim-key", CovidShieldWire.claimRequest(code: "1234567\(n)", appKey: app.publicKey),
                    headers: [("X-Forwarded-For", address)], contentType: "application/x-protobuf"
                )
                #expect(claim.status == 401)
            }
            let bodies = harness.verification.requestBodies
            #expect(bodies.count == 3)
            let origins = try bodies.map { text in
                let body = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                let origin = try #require(body["origin"] as? [String: String])
                return (source: try #require(origin["source"]), network: try #require(origin["network"]))
            }
            for origin in origins {
                #expect(Codes.isOriginHash(origin.source) && Codes.isOriginHash(origin.network))
            }
            #expect(!bodies.contains { $0.contains("198.51") || $0.contains("203.0") || $0.contains("c63364") })
            #expect(Set(origins.map { $0.source }).count == 3)
            #expect(origins[0].network == origins[1].network)
            #expect(origins[0].network != origins[2].network)
        }
    }

    @Test(arguments: TestDatabase.all)
    func unreadableClaimsAndMalformedKeysAre400(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            harness.verification.issueCode("12345678")
            let tooBig = try await harness.claimKey(CovidShieldWire.claimRequest(code: "12345678", appKey: [UInt8](repeating: 1, count: 32)) + [UInt8](repeating: 0, count: 500 - 44))
            Covers.status(400, of: "POST /claim-key", tooBig)
            #expect(tooBig.body == [0x08, 0x01])
            let garbage = try await harness.claimKey([0xFF, 0x13, 0x37, 0x00, 0x42])
            #expect(garbage.status == 400 && garbage.body == [0x08, 0x01])
            let noKey = try await harness.claimKey(CovidShieldWire.bytes("0a083132333435363738"))
            #expect(noKey.status == 400 && noKey.body == [0x08, 0x01])
            for length in [16, 36] {
                let short = try await harness.claimKey(CovidShieldWire.claimRequest(code: "12345678", appKey: [UInt8](repeating: 7, count: length)))
                #expect(short.status == 400 && short.body == [0x08, 0x04])
            }
            // A code no code can be (empty, or longer than verification reads) is wrong without asking.
            for code in ["", String(repeating: "1", count: 33)] {
                let wrong = try await harness.claimKey(CovidShieldWire.claimRequest(code: code, appKey: CovidShieldWire.appPair.publicKey))
                #expect(wrong.status == 401 && wrong.body == [0x08, 0x02])
            }
            // None of these spent the code.
            #expect(harness.verification.callCount("redeem") == 0)
            let unknown = try await harness.claimKey(CovidShieldWire.claimRequest(code: "87654321", appKey: CovidShieldWire.appPair.publicKey))
            Covers.status(401, of: "POST /claim-key", unknown)
            #expect(unknown.body == [0x08, 0x02])
        }
    }

    @Test(arguments: TestDatabase.all)
    func codesAreSpentOnceDieAfterTenMinutesAndAppKeysAreBoundForEver(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let app = CovidShieldWire.appPair
            harness.verification.issueCode("11111111")
            #expect(try await harness.claimKey(CovidShieldWire.claimRequest(code: "11111111", appKey: app.publicKey)).status == 200)
            // The code again, with another app key: spent.
            let other = try CryptoBox.keyPair(using: SystemRandomSource())
            let again = try await harness.claimKey(CovidShieldWire.claimRequest(code: "11111111", appKey: other.publicKey))
            #expect(again.status == 401 && again.body == [0x08, 0x02])
            // 11 minutes old: dead.
            harness.verification.issueCode("22222222")
            harness.clock.advance(by: 11 * 60)
            let old = try await harness.claimKey(CovidShieldWire.claimRequest(code: "22222222", appKey: other.publicKey))
            #expect(old.status == 401 && old.body == [0x08, 0x02])
            // A bound app key with a fresh code: refused before the code, which stays good for someone else.
            harness.verification.issueCode("33333333")
            let bound = try await harness.claimKey(CovidShieldWire.claimRequest(code: "33333333", appKey: app.publicKey))
            #expect(bound.status == 401 && bound.body == [0x08, 0x04])
            #expect(try await harness.claimKey(CovidShieldWire.claimRequest(code: "33333333", appKey: other.publicKey)).status == 200)
            // Bound for ever: even once its pair is dead and deleted.
            harness.clock.advance(by: 20 * 86_400)
            #expect(try await CovidShieldKeyPairStore(database: harness.database).purgeDead(now: harness.clock.now()) == 2)
            harness.verification.issueCode("44444444")
            #expect(try await harness.claimKey(CovidShieldWire.claimRequest(code: "44444444", appKey: app.publicKey)).body == [0x08, 0x04])
        }
    }

    @Test(arguments: TestDatabase.all)
    func throttledRedemptionsAre429NotAWrongCode(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            harness.verification.failNext([.tooManyRequests], on: "redeem")
            let response = try await harness.claimKey(CovidShieldWire.claimRequest(code: "12345678", appKey: CovidShieldWire.appPair.publicKey))
            Covers.status(429, of: "POST /claim-key", response)
            #expect(response.body == [0x08, 0x03])
            // Verification down: a server error, not a wrong code.
            harness.verification.failNext([.internalServerError], on: "redeem")
            let down = try await harness.claimKey(CovidShieldWire.claimRequest(code: "12345678", appKey: CovidShieldWire.appPair.publicKey))
            Covers.status(500, of: "POST /claim-key", down)
            #expect(down.body == [0x08, 0x03])
        }
    }
}
