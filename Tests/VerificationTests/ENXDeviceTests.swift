import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain
@testable import VerificationENX

/// The ENX device endpoints as ENX on a phone calls them (docs/enx.md, 2.1 and 2.2; the acceptance list's items 10 to
/// 22), on both databases.
@Suite struct ENXDeviceTests {
    /// Item 10: a code verifies once for a token of the documented form.
    @Test(arguments: TestDatabase.all)
    func aCodeVerifiesForATokenOfTheDocumentedForm(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let (code, _) = try await enx.newCode(symptomDaysAgo: 2)
            let answer = try await enx.verify(code)
            Covers.status(200, of: "POST /api/verify", answer.as(.enx))
            #expect(answer.json["testtype"] as? String == "confirmed")
            #expect(answer.json["symptomDate"] as? String == enx.day(2))
            #expect(answer.json["testDate"] == nil && answer.json["errorCode"] == nil)
            ENXHarness.expectPadding(answer)
            let token = try #require(answer.json["token"] as? String)
            let header = try ENXHarness.segment(token, 0), claims = try ENXHarness.segment(token, 1)
            #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "default-v1" && header["typ"] as? String == "JWT")
            #expect(claims["iss"] as? String == "exposuresuite-verification" && claims["aud"] as? String == claims["iss"] as? String)
            #expect(claims["sub"] as? String == "confirmed.\(enx.day(2)).")
            #expect((claims["exp"] as? Int ?? 0) - (claims["iat"] as? Int ?? 0) == 86400)
            #expect((claims["jti"] as? String)?.count == 128)
            // The database knows the token only by the SHA-256 of its id, and the code only by keyed hashes.
            let stored = try await enx.h.database.withConnection { connection in
                try await connection.raw("SELECT token_hash FROM enx_tokens").all().map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(stored == [SecretHash.sha256Hex(try #require(claims["jti"] as? String))])
            // The authority's first key was made for it, and is published for key servers.
            let jwks = try await enx.h.app.get("/jwks/default")
            #expect(jwks.text.contains("\"kid\":\"default-v1\""))
        }
    }

    /// Item 11 and the order of 2.1: a code is claimed once; unknown, claimed and malformed codes are alike; an admin
    /// key or none is 401.
    @Test(arguments: TestDatabase.all)
    func aCodeIsClaimedOnceAndOthersAreInvalid(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let (code, _) = try await enx.newCode()
            _ = try await enx.token(for: code)
            let refusals = [
                try await enx.verify(code), try await enx.verify("00000000"), try await enx.verify("0000000"), try await enx.verify(" \(code)"),
                try await enx.verify(String(repeating: "a", count: 16)),
            ].map { $0.as(.enx) }
            Covers.status(400, of: "POST /api/verify", among: refusals, error: "code_invalid")
            let unauthorized = [try await enx.verify(code, key: enx.admin), try await enx.verify(code, key: "")].map { $0.as(.enx) }
            Covers.status(401, of: "POST /api/verify", among: unauthorized, error: "")
            let badAccept = try await enx.verify(code, accept: ["positive"])
            badAccept.as(.enx).expectError(400, "invalid_test_type")
            let badNonce = try await enx.call(enx.h.app, ENXHarness.verify, ["code": code, "nonce": "***"], key: enx.device)
            badNonce.as(.enx).expectError(400, "unparsable_request")
            let unknownField = try await enx.call(enx.h.app, ENXHarness.verify, ["code": code, "phone": "1"], key: enx.device)
            unknownField.as(.enx).expectError(400, "unparsable_request")
            // A body the app listener's own limit (10,000 bytes, 406) would refuse is the family's to judge: padding of
            // 20,000 bytes is read, and 64,000 bytes and more are a 400 in ENX's form.
            let (fresh, _) = try await enx.newCode()
            let padded = try await enx.call(enx.h.app, ENXHarness.verify, ["code": fresh, "padding": String(repeating: "A", count: 20_000)], key: enx.device)
            #expect(padded.status == 200, "\(padded.text.prefix(200))")
            let huge = try await enx.call(enx.h.app, ENXHarness.verify, ["code": fresh, "padding": String(repeating: "A", count: 64_000)], key: enx.device)
            huge.as(.enx).expectError(400, "unparsable_request")
        }
    }

    /// Item 12: a code of a type the phone does not accept is 412 and stays usable; `accept` values are expanded as
    /// the reference expands them.
    @Test(arguments: TestDatabase.all)
    func aCodeOfAnUnacceptedTypeStaysUsable(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let (likely, _) = try await enx.newCode("likely")
            let refused = try await enx.verify(likely, accept: ["confirmed"])
            Covers.status(412, of: "POST /api/verify", refused.as(.enx), error: "unsupported_test_type")
            let accepted = try await enx.verify(likely, accept: ["LIKELY"])
            #expect(accepted.status == 200 && accepted.json["testtype"] as? String == "likely")
            let (negative, _) = try await enx.newCode("negative", symptomDaysAgo: nil, testDaysAgo: 1)
            try await enx.verify(negative, accept: ["likely", "user-report"]).as(.enx).expectError(412, "unsupported_test_type")
            let any = try await enx.verify(negative)
            #expect(any.status == 200 && any.json["testDate"] as? String == enx.day(1) && any.json["symptomDate"] == nil)
        }
    }

    /// Item 13: a chaff request, with a valid key, is answered with padding only and changes nothing; without a key it
    /// is refused as any request.
    @Test(arguments: TestDatabase.all)
    func chaffIsAnsweredWithPaddingAndChangesNothing(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let (code, _) = try await enx.newCode()
            for path in [ENXHarness.verify, ENXHarness.certificate] {
                let chaff = try await enx.call(enx.h.app, path, ["code": code], key: enx.device, headers: [("X-Chaff", "1")])
                #expect(chaff.status == 200 && chaff.json.keys.sorted() == ["padding"], "\(chaff.text.prefix(100))")
                ENXHarness.expectPadding(chaff)
                #expect(try await enx.call(enx.h.app, path, ["code": code], key: nil, headers: [("X-Chaff", "1")]).status == 401)
            }
            let token = try await enx.token(for: code)
            #expect(try await enx.certificate(token).status == 200)
        }
    }

    /// Chaff and real answers have one length distribution: every 200 of the device endpoints is 2,400 to 2,740 bytes,
    /// whatever it holds (a token with both dates, a certificate, or nothing). With the reference's padding alone, of
    /// 1,024 to 2,047 bytes beside the content, a real answer was its content (600 to 700 bytes) longer than chaff.
    @Test(arguments: TestDatabase.all)
    func chaffAndRealAnswersAreAlikeInLength(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            var real: [Int] = [], chaff: [Int] = []
            for round in 0..<12 {
                let (code, _) = try await enx.newCode(symptomDaysAgo: 2, testDaysAgo: round % 2 == 0 ? 1 : nil)
                let verified = try await enx.verify(code)
                let certified = try await enx.certificate(try #require(verified.json["token"] as? String))
                real += [verified.body.count, certified.body.count]
                for path in [ENXHarness.verify, ENXHarness.certificate] {
                    let answer = try await enx.call(enx.h.app, path, ["code": code], key: enx.device, headers: [("X-Chaff", "1")])
                    chaff.append(answer.body.count)
                    #expect(answer.json.keys.sorted() == ["padding"])
                    ENXHarness.expectPadding(answer)
                }
                ENXHarness.expectPadding(verified)
                ENXHarness.expectPadding(certified)
            }
            #expect((real + chaff).allSatisfy { (2400...2740).contains($0) }, "real \(real), chaff \(chaff)")
        }
    }

    /// Item 14: of concurrent verifications of one code, exactly one gets a token.
    @Test(arguments: TestDatabase.all)
    func concurrentVerificationsClaimACodeOnce(kind: TestDatabase) async throws {
        // Guesses are taken before the lookup and a found code gives its back, so eight at once would meet the phone's
        // default burst of five (429); the allowance is widened to see the claim alone.
        let allowance = [
            "ONE_TIME_CODE_SOURCE_FAILURE_BURST": "20", "ONE_TIME_CODE_NETWORK_FAILURE_BURST": "40", "ONE_TIME_CODE_FAILURE_BURST": "100",
        ]
        try await ENXHarness.run(on: kind, environment: allowance) { enx in
            let (code, uuid) = try await enx.newCode()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await enx.verify(code).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1 && statuses.filter { $0 == 400 }.count == 7, "\(statuses)")
            #expect(try await enx.h.database.withConnection { try await $0.raw("SELECT COUNT(*) AS n FROM enx_tokens").first()?.decode(column: "n", as: Int.self) } == 1)
            #expect(try await enx.status(uuid).json["claimed"] as? Bool == true)
        }
    }

    /// Items 16 and 22: another authority's device key does not find this authority's code or token.
    @Test(arguments: TestDatabase.all)
    func codesAndTokensStayWithTheirAuthority(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            try await enx.h.addAuthority("ha-b")
            let otherDevice = try await enx.h.enxKey("device", name: "b-app", authority: "ha-b")
            let (code, _) = try await enx.newCode()
            try await enx.verify(code, key: otherDevice).as(.enx).expectError(400, "code_invalid")
            let token = try await enx.token(for: code)
            try await enx.certificate(token, key: otherDevice).as(.enx).expectError(400, "token_expired")
            #expect(try await enx.certificate(token).status == 200)
        }
    }

    /// Items 17 and 18: the certificate of the documented form, signed with the authority's published key, for the
    /// phone's HMAC; its token buys one.
    @Test(arguments: TestDatabase.all)
    func aTokenBuysOneCertificateForThePhonesKeys(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let (code, _) = try await enx.newCode(symptomDaysAgo: 3)
            let token = try await enx.token(for: code)
            let answer = try await enx.certificate(token)
            Covers.status(200, of: "POST /api/certificate", answer.as(.enx))
            ENXHarness.expectPadding(answer)
            let text = try #require(answer.json["certificate"] as? String)
            let certificate = try #require(ENXCertificate(text))
            #expect(certificate.keyID == "default-v1")
            let published = try #require(try await enx.h.database.withConnection { connection in
                try await connection.raw("SELECT public_key FROM authority_signing_keys WHERE authority = 'default'").first()?.decode(column: "public_key", as: String.self)
            })
            let key = try P256.Signing.PublicKey(rawRepresentation: try #require(Data(base64Encoded: published)))
            let claims = try certificate.verify(audience: "exposure-notifications-server", key: key, now: enx.now)
            #expect(claims.iss == "exposuresuite/default" && claims.reportType == "confirmed" && claims.tekmac == ENXHarness.hmac)
            #expect(claims.symptomOnsetInterval == UInt32(UTCDay(containing: enx.now).adding(days: -3).midnight / 600))
            #expect(claims.exp == enx.now + 900 && claims.iat == enx.now - 5 && claims.nbf == enx.now - 5)
            #expect(try ENXHarness.segment(text, 1)["aud"] is String)
            // The certificate binds the phone's keys: vector A's HMAC is the one its keys give.
            let keys = [
                ENXExposureKeyHMAC.Key(key: "AAECAwQFBgcICQoLDA0ODw==", rollingStartNumber: 2_676_672, rollingPeriod: 144, transmissionRisk: 2),
                ENXExposureKeyHMAC.Key(key: "EBESExQVFhcYGRobHB0eHw==", rollingStartNumber: 2_676_528, rollingPeriod: 144, transmissionRisk: 2),
                ENXExposureKeyHMAC.Key(key: "/////////////////////w==", rollingStartNumber: 2_676_816, rollingPeriod: 60, transmissionRisk: 2),
            ]
            #expect(ENXExposureKeyHMAC.matches(
                keys, hmacKey: Data(base64Encoded: "ABEiM0RVZneImaq7zN3u/wARIjNEVWZ3iJmqu8zd7v8=")!, tekmac: try #require(Data(base64Encoded: claims.tekmac))
            ))

            let again = try await enx.certificate(token)
            Covers.status(400, of: "POST /api/certificate", again.as(.enx), error: "token_expired")
            let admin = try await enx.certificate(token, key: enx.admin)
            Covers.status(401, of: "POST /api/certificate", admin.as(.enx), error: "")
        }
    }

    /// Item 19: a wrong HMAC is refused before the token is spent.
    @Test(arguments: TestDatabase.all)
    func aWrongHMACLeavesTheTokenUsable(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let token = try await enx.token(for: try await enx.newCode().code)
            for hmac in [Data(repeating: 1, count: 16).base64EncodedString(), "not base64!", ""] {
                try await enx.certificate(token, hmac: hmac).as(.enx).expectError(400, "hmac_invalid")
            }
            // The URL-safe and unpadded forms of 32 bytes are read too, and the certificate carries the text as sent.
            let urlSafe = Array(Data(base64Encoded: ENXHarness.hmac)!).base64URLString
            let answer = try await enx.certificate(token, hmac: urlSafe)
            #expect(answer.status == 200)
            #expect(try ENXHarness.segment(try #require(answer.json["certificate"] as? String), 1)["tekmac"] as? String == urlSafe)
        }
    }

    /// Items 20 and 22: a tampered, foreign, garbage or expired token is `token_invalid`.
    @Test(arguments: TestDatabase.all)
    func forgedOrExpiredTokensAreInvalid(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let token = try await enx.token(for: try await enx.newCode().code)
            var segments = token.split(separator: ".").map(String.init)
            var claims = try ENXHarness.segment(token, 1)
            claims["sub"] = "likely.."
            segments[1] = Array(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])).base64URLString
            let tampered = segments.joined(separator: ".")
            // Signed by a key the authority never had, under its kid.
            let foreignClaims = try JSONDecoder().decode(ENXVerificationToken.Claims.self, from: try JSONSerialization.data(withJSONObject: try ENXHarness.segment(token, 1)))
            let foreign = try ENXVerificationToken.sign(foreignClaims, keyID: "default-v1", with: P256.Signing.PrivateKey())
            let unknownKey = try ENXVerificationToken.sign(foreignClaims, keyID: "default-v9", with: P256.Signing.PrivateKey())
            var answers: [FamilyAnswer] = []
            for text in [tampered, foreign, unknownKey, "garbage", "", token + "x"] {
                answers.append(try await enx.certificate(text).as(.enx))
            }
            Covers.status(400, of: "POST /api/certificate", among: answers, error: "token_invalid")
            let unparsable = try await enx.call(enx.h.app, ENXHarness.certificate, ["token": token, "ekeyhmac": ENXHarness.hmac, "extra": 1], key: enx.device)
            unparsable.as(.enx).expectError(400, "token_invalid")
            enx.h.clock.advance(by: 86400)
            let expired = try await enx.certificate(token)
            expired.as(.enx).expectError(400, "token_invalid")
            #expect(expired.json["error"] as? String == "verification token expired")
        }
    }

    /// Item 21: without a symptom date the certificate has no onset; a likely code's is a likely report.
    @Test(arguments: TestDatabase.all)
    func theCertificateSaysWhatTheCodeSaid(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let (code, _) = try await enx.newCode("likely", symptomDaysAgo: nil, testDaysAgo: 1)
            let answer = try await enx.certificate(try await enx.token(for: code))
            let claims = try ENXHarness.segment(try #require(answer.json["certificate"] as? String), 1)
            #expect(claims["reportType"] as? String == "likely" && claims["symptomOnsetInterval"] == nil)
        }
    }
}

/// Guessing at codes: the device key ships in every phone, so the allowance of wrong codes is what bounds a guesser
/// (docs/security.md, "ENX codes").
@Suite struct ENXGuessingTests {
    /// A phone that sent its allowance of wrong codes is refused before any lookup, even with a right code; a right
    /// code does not use the allowance. Without the throttle the sixth wrong code would be a plain `code_invalid`.
    @Test(arguments: TestDatabase.all)
    func wrongCodesUseUpThePhonesAllowance(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["ONE_TIME_CODE_SOURCE_FAILURE_BURST": "3", "ONE_TIME_CODE_SOURCE_FAILURES_PER_HOUR": "30"]) { h in
            let enx = ENXHarness(h: h, admin: try await h.enxKey("admin", name: "ha-system"), device: try await h.enxKey("device", name: "enx-app"))
            for _ in 0..<5 {
                let (right, _) = try await enx.newCode()
                #expect(try await enx.verify(right).status == 200)
            }
            for guess in ["00000001", "00000002", "00000003"] {
                try await enx.verify(guess).as(.enx).expectError(400, "code_invalid")
            }
            let (right, _) = try await enx.newCode()
            let refused = try await enx.verify(right)
            Covers.status(429, of: "POST /api/verify", refused.as(.plainText))
            #expect(refused.text == "Too Many Requests\n" && refused.header("Retry-After") == "120")
            // The allowance refills: two minutes later one guess more.
            h.clock.advance(by: 120)
            #expect(try await enx.verify(right).status == 200)
        }
    }
}

/// Random and twisted JSON to every ENX endpoint: never a crash or a 5xx; every refusal in ENX's form (or the guess
/// allowance's plain text); a code and a token nobody sent stay usable. `FUZZ_SEED=<n>` replays a run.
@Suite struct ENXFuzzTests {
    @Test(arguments: TestDatabase.all)
    func randomJSONIsAnsweredInTheFamilysForm(kind: TestDatabase) async throws {
        // An allowance wide enough that the last check's right code is not refused for the fuzzer's wrong ones.
        let allowance = [
            "ONE_TIME_CODE_SOURCE_FAILURE_BURST": "200", "ONE_TIME_CODE_NETWORK_FAILURE_BURST": "400", "ONE_TIME_CODE_FAILURE_BURST": "1000",
        ]
        try await ENXHarness.run(on: kind, environment: allowance) { enx in
            let fuzz = JSONFuzz(
                ByteMutator(defaultSeed: 61_061),
                words: ["confirmed", "likely", "negative", "user-report", enx.day(1), "2020-11-20"],
                fieldNames: ["code", "accept", "nonce", "token", "ekeyhmac", "testType", "symptomDate", "testDate", "uuid", "codes", "padding", "phone"]
            )
            let (code, uuid) = try await enx.newCode()
            let (kept, _) = try await enx.newCode()
            let token = try await enx.token(for: code)
            let endpoints: [(client: TestHTTPClient, path: String, key: String, template: [String: Any])] = [
                (enx.h.app, ENXHarness.verify, enx.device, ["code": "12345678", "accept": ["confirmed"]]),
                (enx.h.app, ENXHarness.certificate, enx.device, ["token": "x.y.z", "ekeyhmac": ENXHarness.hmac]),
                (enx.h.issuer, ENXHarness.issue, enx.admin, ["testType": "confirmed", "symptomDate": enx.day(1), "tzOffset": -60]),
                (enx.h.issuer, ENXHarness.batchIssue, enx.admin, ["codes": [["testType": "likely", "testDate": enx.day(2)]]]),
                (enx.h.issuer, ENXHarness.checkCodeStatus, enx.admin, ["uuid": uuid]),
                (enx.h.issuer, ENXHarness.expireCode, enx.admin, ["uuid": UUID().uuidString]),
            ]
            var statuses: [Int: Int] = [:]
            for round in 0..<480 {
                let endpoint = endpoints[round % endpoints.count]
                let body = JSONFuzz.encode(round % 2 == 0 ? fuzz.randomValue() : fuzz.twisted(endpoint.template))
                let answer = try await endpoint.client.postRaw(endpoint.path, body, headers: [("X-API-Key", endpoint.key)])
                statuses[answer.status, default: 0] += 1
                let sent = String(decoding: body, as: UTF8.self).prefix(200)
                #expect(answer.status < 500, "\(endpoint.path) \(sent): \(answer.status) \(answer.text.prefix(200))")
                if answer.status == 429, endpoint.path == ENXHarness.verify {
                    #expect(answer.text == "Too Many Requests\n")
                } else if answer.status >= 400 {
                    #expect(answer.json["errorCode"] is String && answer.json["error_code"] as? String == answer.json["errorCode"] as? String, "\(endpoint.path) \(sent): \(answer.text.prefix(200))")
                } else {
                    #expect(answer.json["padding"] is String, "\(endpoint.path) \(sent): \(answer.text.prefix(200))")
                }
            }
            print("JSON fuzzing of ENX (\(kind)): \(statuses.sorted { $0.key < $1.key })")
            // What nobody sent is untouched: the other code verifies, the token buys its certificate.
            #expect(try await enx.verify(kept).status == 200)
            #expect(try await enx.certificate(token).status == 200)
            #expect(try await enx.status(uuid).json["claimed"] as? Bool == true)
        }
    }
}
