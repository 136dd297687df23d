import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing
@testable import Submission
@testable import SubmissionCore

/// The ProteGO Safe adapter on the submission listener, with verification's stand-in (which redeems PINs as the real
/// one does): the envelopes and statuses of the design sheet's acceptance list, and that no invalid request spends a
/// token. `ProteGOEndToEndTests` runs the same story against the real verification service.
@Suite struct ProteGOAPITests {
    /// A PIN exchanged for a token, as the app does.
    func token(_ harness: SubmissionHarness) async throws -> String {
        let pin = harness.verification.issuePIN()
        let response = try await harness.client.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": pin]])
        #expect(response.status == 200, "\(response.text)")
        let result = try #require(response.json["result"] as? [String: Any])
        return try #require(result["accessToken"] as? String)
    }

    func upload(_ harness: SubmissionHarness, _ body: [String: Any]) async throws -> TestResponse {
        try await harness.client.postJSON(ProteGOPayloads.uploadPath, body)
    }

    /// The stored rows' origin country and consent, read with SQL of its own.
    func stored(_ harness: SubmissionHarness) async throws -> [(origin: String, consent: Bool, risk: Int32)] {
        try await harness.database.withConnection { connection in
            try await connection.raw("SELECT origin_country, consent_to_federation, transmission_risk_level FROM diagnosis_keys").all().map {
                (try $0.decode(column: "origin_country", as: String.self), try $0.decode(column: "consent_to_federation", as: Bool.self),
                 try $0.decode(column: "transmission_risk_level", as: Int32.self))
            }
        }
    }

    // MARK: getAccessToken

    @Test(arguments: TestDatabase.all)
    func aPINIsExchangedOnceForAnOpaqueToken(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let pin = harness.verification.issuePIN()
            // Apps send the PIN as typed; it is compared upper-cased.
            let first = try await harness.client.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": pin.lowercased()]])
            Covers.status(200, of: "POST /getAccessToken", first)
            #expect(first.json.count == 1)
            let token = try #require((first.json["result"] as? [String: Any])?["accessToken"] as? String)
            // Opaque: not a JWT that carries the PIN.
            #expect(token.split(separator: ".").count == 1)
            #expect(!token.uppercased().contains(pin))
            let again = try await harness.client.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": pin]])
            again.expectCallableError(404, "NOT_FOUND", message: "Invalid code")
            Covers.status(404, of: "POST /getAccessToken", again)
        }
    }

    @Test(arguments: TestDatabase.all)
    func unknownEmptyAndMalformedPINsAreNotFound(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            for body: [String: Any] in [["data": ["code": "ZZ99ZZ"]], ["data": ["code": ""]], ["data": ["code": "A1B2C3D4"]], ["data": [String: Any]()]] {
                let response = try await harness.client.postJSON(ProteGOPayloads.accessTokenPath, body)
                response.expectCallableError(404, "NOT_FOUND", message: "Invalid code")
            }
            // Only the well-formed one was asked about.
            #expect(harness.verification.callCount("redeem") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aThrottledGuessIsNotAWrongPIN(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            harness.verification.throttleFailedRedemptions(true)
            let response = try await harness.client.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": "ZZ99ZZ"]])
            response.expectCallableError(429, "RESOURCE_EXHAUSTED")
            Covers.status(429, of: "POST /getAccessToken", response)
            // Verification unreachable or failing: not a 404 either, so the app tries again later.
            harness.verification.failNext([.internalServerError], on: "redeem")
            let failing = try await harness.client.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": "ZZ99ZZ"]])
            failing.expectCallableError(503, "UNAVAILABLE")
            Covers.status(503, of: "POST /getAccessToken", failing)
        }
    }

    @Test(arguments: TestDatabase.all)
    func whatIsNotACallableRequestIsInvalidArgument(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let client = harness.client
            let pin = harness.verification.issuePIN()
            let bodies: [[UInt8]] = [
                Array(#"{"code":"\#(pin)"}"#.utf8),
                Array(#"{"data":{"code":"\#(pin)"},"extra":1}"#.utf8),
                Array(#"{"data":"\#(pin)"}"#.utf8),
                Array("not json".utf8),
                [],
            ]
            for body in bodies {
                let response = try await client.postRaw(ProteGOPayloads.accessTokenPath, body)
                response.expectCallableError(400, "INVALID_ARGUMENT", message: "Bad Request")
            }
            let form = try await client.postRaw(ProteGOPayloads.accessTokenPath, Array(#"{"data":{"code":"\#(pin)"}}"#.utf8), contentType: "text/plain")
            form.expectCallableError(400, "INVALID_ARGUMENT", message: "Bad Request")
            let get = try await client.get(ProteGOPayloads.accessTokenPath)
            get.expectCallableError(400, "INVALID_ARGUMENT", message: "Bad Request")
            Covers.status(400, of: "POST /getAccessToken", form)
            let getUpload = try await client.get(ProteGOPayloads.uploadPath)
            getUpload.expectCallableError(400, "INVALID_ARGUMENT")
            // None of them spent the PIN.
            #expect(harness.verification.callCount("redeem") == 0)
            let valid = try await client.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": pin]])
            #expect(valid.status == 200)
        }
    }

    // MARK: uploadDiagnosisKeys

    @Test(arguments: TestDatabase.all)
    func anIOSUploadIsStoredForTheRegion(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let token = try await token(harness)
            let now = harness.clock.now()
            let response = try await upload(harness, ProteGOPayloads.iOS(keys: [ProteGOPayloads.key(1, now: now)], token: token))
            Covers.status(200, of: "POST /uploadDiagnosisKeys", response)
            #expect(response.text == #"{"result":""}"#)
            let rows = try await stored(harness)
            #expect(rows.count == 1)
            #expect(rows.first?.origin == "PL")
            #expect(rows.first?.consent == false)
            #expect(rows.first?.risk == 8)
            #expect(try await harness.store.pendingCount() == 0)
            // Spent: the same token again (even with the same keys) is refused.
            let reuse = try await upload(harness, ProteGOPayloads.iOS(keys: [ProteGOPayloads.key(2, now: now)], token: token))
            reuse.expectCallableError(401, "UNAUTHENTICATED", message: "")
            Covers.status(401, of: "POST /uploadDiagnosisKeys", reuse)
        }
    }

    @Test(arguments: TestDatabase.all)
    func anAndroidUploadOfFourteenKeysIsStored(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let token = try await token(harness)
            let response = try await upload(harness, ProteGOPayloads.android(now: harness.clock.now(), token: token))
            #expect(response.status == 200, "\(response.text)")
            #expect(try await harness.storedCount() == 14)
        }
    }

    @Test(arguments: TestDatabase.all)
    func theInteroperabilityFlagIsConsentToFederation(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let token = try await token(harness)
            var body = ProteGOPayloads.iOS(keys: [ProteGOPayloads.key(3, now: harness.clock.now())], token: token)
            body["isInteroperabilityEnabled"] = true
            let response = try await upload(harness, body)
            #expect(response.status == 200, "\(response.text)")
            #expect(try await stored(harness).map { $0.consent } == [true])
        }
    }

    @Test(arguments: TestDatabase.all)
    func aMissingOrGarbageTokenIsUnauthenticated(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let keys = [ProteGOPayloads.key(4, now: harness.clock.now())]
            var noToken = ProteGOPayloads.iOS(keys: keys, token: "")
            var data = noToken["data"] as! [String: Any]
            data.removeValue(forKey: "verificationPayload")
            noToken["data"] = data
            for body in [noToken, ProteGOPayloads.iOS(keys: keys, token: "garbage"),
                         ProteGOPayloads.iOS(keys: keys, token: Codes.uuidV4(using: SystemRandomSource()))] {
                let response = try await upload(harness, body)
                response.expectCallableError(401, "UNAUTHENTICATED", message: "")
            }
            #expect(try await harness.storedCount() == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aTokenStillWorksAfterAFailedUpload(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let token = try await token(harness)
            let body = ProteGOPayloads.iOS(keys: [ProteGOPayloads.key(5, now: harness.clock.now())], token: token)
            // Verification fails to answer the reservation: nothing is spent, the app is told to try again (not 401).
            harness.verification.failNext([.internalServerError], on: "reserve")
            let failed = try await upload(harness, body)
            failed.expectCallableError(503, "UNAVAILABLE")
            Covers.status(503, of: "POST /uploadDiagnosisKeys", failed)
            #expect(!harness.verification.isSpent(token))
            // Android retries with the same token and payload.
            let retry = try await upload(harness, body)
            #expect(retry.status == 200, "\(retry.text)")
            #expect(harness.verification.isSpent(token))
            #expect(try await harness.storedCount() == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func invalidPayloadsLeaveTheTokenUnspent(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let token = try await token(harness)
            let now = harness.clock.now()
            let key = { (byte: UInt8) in ProteGOPayloads.key(byte, now: now) }
            var short = key(1)
            short["key"] = Data(repeating: 1, count: 15).base64EncodedString()
            var future = key(2)
            future["rollingStartNumber"] = Int(now.timeIntervalSince1970) / 600 + 1
            var tooOld = key(3)
            tooOld["rollingStartNumber"] = Int(now.timeIntervalSince1970) / 600 - 360 * 6 - 1
            var notBase64 = key(4)
            notBase64["key"] = "not base64!"
            let invalid: [(String, [[String: Any]])] = [
                ("31 keys", (0..<31).map { ProteGOPayloads.key(UInt8(10 + $0), now: now, daysAgo: $0 % 14 + 1, period: 1) }),
                ("no keys", []),
                ("15-byte key", [short]),
                ("not base64", [notBase64]),
                ("rolling period 0", [ProteGOPayloads.key(5, now: now, period: 0)]),
                ("rolling period 145", [ProteGOPayloads.key(6, now: now, period: 145)]),
                ("transmission risk 9", [ProteGOPayloads.key(7, now: now, risk: 9)]),
                ("transmission risk -1", [ProteGOPayloads.key(7, now: now, risk: -1)]),
                ("future start", [future]),
                ("older than 360 hours", [tooOld]),
                ("overlapping keys of different starts", [ProteGOPayloads.key(8, now: now, daysAgo: 1), Self.shifted(ProteGOPayloads.key(9, now: now, daysAgo: 1), by: 72)]),
                ("four keys of one start", (0..<4).map { ProteGOPayloads.key(UInt8(40 + $0), now: now, daysAgo: 2, period: 36 * ($0 + 1)) }),
                ("the same key twice", [key(10), key(10)]),
            ]
            for (name, keys) in invalid {
                let response = try await upload(harness, ProteGOPayloads.iOS(keys: keys, token: token))
                #expect(response.status == 400, "\(name): \(response.text)")
                response.expectCallableError(400, "INVALID_ARGUMENT")
            }
            var otherRegion = ProteGOPayloads.iOS(keys: [key(11)], token: token)
            var data = otherRegion["data"] as! [String: Any]
            data["regions"] = ["DE"]
            otherRegion["data"] = data
            let region = try await upload(harness, otherRegion)
            region.expectCallableError(400, "INVALID_ARGUMENT")
            Covers.status(400, of: "POST /uploadDiagnosisKeys", region)
            // Fields the publish body of the time did not have: refused, in `data` and at the top.
            var unknownInData = ProteGOPayloads.iOS(keys: [key(12)], token: token)
            data = unknownInData["data"] as! [String: Any]
            data["padding"] = "AAAA"
            unknownInData["data"] = data
            let unknown = try await upload(harness, unknownInData)
            unknown.expectCallableError(400, "INVALID_ARGUMENT")
            var unknownInKey = key(13)
            unknownInKey["reportType"] = 1
            let keyField = try await upload(harness, ProteGOPayloads.iOS(keys: [unknownInKey], token: token))
            keyField.expectCallableError(400, "INVALID_ARGUMENT")
            var unknownTop = ProteGOPayloads.iOS(keys: [key(14)], token: token)
            unknownTop["extra"] = true
            let top = try await upload(harness, unknownTop)
            top.expectCallableError(400, "INVALID_ARGUMENT")
            let noData = try await upload(harness, ["isInteroperabilityEnabled": true])
            noData.expectCallableError(400, "INVALID_ARGUMENT")
            // Too large, and not JSON.
            let padding = String(repeating: "A", count: 64_000)
            let large = try await harness.client.postRaw(ProteGOPayloads.uploadPath, Array(#"{"data":{"platform":"\#(padding)"}}"#.utf8))
            large.expectCallableError(413, "INVALID_ARGUMENT")
            Covers.status(413, of: "POST /uploadDiagnosisKeys", large)
            let text = try await harness.client.postRaw(ProteGOPayloads.uploadPath, Array("{}".utf8), contentType: "text/plain")
            text.expectCallableError(415, "INVALID_ARGUMENT")
            Covers.status(415, of: "POST /uploadDiagnosisKeys", text)

            // Verification was never asked; the token still uploads.
            #expect(harness.verification.callCount("reserve") == 0)
            #expect(try await harness.storedCount() == 0)
            let valid = try await upload(harness, ProteGOPayloads.iOS(keys: [key(20)], token: token))
            #expect(valid.status == 200, "\(valid.text)")
        }
    }

    /// `key` starting `intervals` later, its period unchanged.
    static func shifted(_ key: [String: Any], by intervals: Int) -> [String: Any] {
        var key = key
        key["rollingStartNumber"] = (key["rollingStartNumber"] as! Int) + intervals
        return key
    }

    /// What the released Android apps send at most (30 keys, 3 a day) and what a GAEN 1.5 phone releases for one day
    /// (keys sharing the day's midnight with shorter periods, or following one another): accepted, every key stored.
    @Test(arguments: TestDatabase.all)
    func thirtyKeysAndSeveralKeysOfOneDayAreAccepted(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let now = harness.clock.now()
            // Today and the 14 days before it, two keys each: the day's key and a shorter one of the same start.
            var thirty: [[String: Any]] = []
            for day in 0..<15 {
                let byte = UInt8(1 + 2 * day)
                thirty.append(ProteGOPayloads.key(byte, now: now, daysAgo: day, period: day == 0 ? 1 : 144))
                thirty.append(ProteGOPayloads.key(byte + 1, now: now, daysAgo: day, period: day == 0 ? 1 : 60))
            }
            #expect(thirty.count == 30)
            let response = try await upload(harness, ProteGOPayloads.iOS(keys: thirty, token: try await token(harness)))
            #expect(response.status == 200, "\(response.text)")
            #expect(try await stored(harness).count == 30)

            // Three keys of one start, and two shorter keys of one day that follow one another.
            let threeOfOneStart = (0..<3).map { ProteGOPayloads.key(UInt8(100 + $0), now: now, daysAgo: 3, period: 48 * ($0 + 1)) }
            let following = [
                ProteGOPayloads.key(110, now: now, daysAgo: 5, period: 72), Self.shifted(ProteGOPayloads.key(111, now: now, daysAgo: 5, period: 72), by: 72),
            ]
            let more = try await upload(harness, ProteGOPayloads.iOS(keys: threeOfOneStart + following, token: try await token(harness)))
            #expect(more.status == 200, "\(more.text)")
            #expect(try await stored(harness).count == 35)
        }
    }

    @Test(arguments: TestDatabase.all)
    func requiredAttestationMustBePresentButIsNotVerified(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind, environment: ["PROTEGO_ATTESTATION": "require-presence"]) { harness in
            let token = try await token(harness)
            let now = harness.clock.now()
            let without = try await upload(harness, ProteGOPayloads.iOS(keys: [ProteGOPayloads.key(1, now: now)], token: token, attestation: nil))
            without.expectCallableError(400, "INVALID_ARGUMENT")
            // Any attestation is taken as present: its content is not checked.
            let with = try await upload(harness, ProteGOPayloads.iOS(keys: [ProteGOPayloads.key(1, now: now)], token: token, attestation: "x"))
            #expect(with.status == 200, "\(with.text)")
        }
    }

    @Test(arguments: TestDatabase.all)
    func aConfiguredRegionIsTheOnlyOneAccepted(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind, environment: ["PROTEGO_REGION": "CZ"]) { harness in
            let token = try await token(harness)
            let response = try await upload(harness, ProteGOPayloads.iOS(keys: [ProteGOPayloads.key(1, now: harness.clock.now())], token: token))
            response.expectCallableError(400, "INVALID_ARGUMENT")
        }
    }
}
