import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

@Suite struct TestResultAndTANTests {
    @Test(arguments: TestDatabase.all)
    func pollingFollowsTheLabsResult(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            let token = try #require(try await h.register(guid: guid).json["registrationToken"] as? String)
            let pending = try await h.testResult(token)
            Covers.status(200, of: "POST /version/v1/testresult", pending)
            #expect(pending.json["testResult"] as? Int == 0)
            #expect(pending.body.count == ResponseSizes.testResult)
            try await h.labPosts(guid, result: 2)
            let positive = try await h.testResult(token)
            #expect(positive.json["testResult"] as? Int == 2)
            #expect(positive.json["labId"] as? String == "lab-1")
            #expect(positive.body.count == ResponseSizes.testResult)
        }
    }

    @Test(arguments: TestDatabase.all)
    func unknownOrMalformedTokensAre400(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            for token in [Codes.uuidV4(using: SystemRandomSource()), "nope", ""] {
                Covers.status(400, of: "POST /version/v1/testresult", try await h.testResult(token))
                Covers.status(400, of: "POST /version/v1/tan", try await h.tan(token))
            }
            try #require(try await h.app.postJSON("/version/v1/tan", [:] as [String: String], headers: [("cwa-fake", "0")]).status == 400)
            #expect(try await h.rows("tans") == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func dateOfBirthMismatchIs403(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            let dob = "x" + VerificationHarness.hashedGUID().dropFirst()
            try await h.labPosts(guid, result: 2)
            try await h.labPosts(dob, result: 1)
            let token = try #require(try await h.register(guid: guid, dob: dob).json["registrationToken"] as? String)
            let response = try await h.testResult(token)
            Covers.status(403, of: "POST /version/v1/testresult", response)
            #expect(response.json["error"] as? String == "dob_mismatch")
            try #require(try await h.tan(token).status == 400)
            #expect(try await h.rows("tans") == 0)
            // Once both agree, the result is answered.
            try await h.labPosts(dob, result: 2)
            try #require(try await h.testResult(token).json["testResult"] as? Int == 2)
            try #require(try await h.tan(token).status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aTANOnlyForPositiveResultsAndOnlyOnce(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let negative = try await h.registeredToken(result: 1)
            let refused = try await h.tan(negative)
            Covers.status(400, of: "POST /version/v1/tan", refused)
            #expect(refused.json["error"] as? String == "result_not_positive")
            try #require(try await h.tan(try await h.registeredToken(result: nil)).status == 400)
            try #require(try await h.tan(try await h.registeredToken(result: 8, quick: true)).status == 400)
            #expect(try await h.rows("tans") == 0)

            let positive = try await h.registeredToken(result: 2)
            let issued = try await h.tan(positive)
            Covers.status(201, of: "POST /version/v1/tan", issued)
            #expect(issued.body.count == ResponseSizes.tan)
            let tan = try #require(issued.json["tan"] as? String)
            #expect(Codes.isUUIDv4(tan))
            let second = try await h.tan(positive)
            #expect(second.status == 400)
            #expect(second.json["error"] as? String == "tan_already_issued")
            #expect(try await h.rows("tans") == 1)

            try #require(try await h.tan(try await h.registeredToken(result: 7, quick: true)).status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aTANVerifiesOnceWithinFourteenDays(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let tan = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let ok = try await h.verify(tan)
            Covers.status(200, of: "POST /version/v1/tan/verify", ok)
            #expect(ok.body.isEmpty)
            #expect(ok.header("X-CWA-TELETAN-TYPE") == nil)
            let reused = try await h.verify(tan)
            Covers.status(404, of: "POST /version/v1/tan/verify", reused)
            #expect(reused.json["error"] as? String == "tan_not_found")

            let late = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            h.clock.advance(by: 14 * 86400 + 1)
            try #require(try await h.verify(late).status == 404)

            try #require(try await h.verify(Codes.uuidV4(using: SystemRandomSource())).status == 404)
            Covers.status(400, of: "POST /version/v1/tan/verify", try await h.verify("not-a-uuid"))
            try #require(try await h.internal.postRaw("/version/v1/tan/verify", Array("{".utf8)).status == 400)
            try #require(try await h.internal.postJSON("/version/v1/tan/verify", ["tan": 42]).status == 400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func teleTANDerivedTANsCarryTheirType(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            for type in ["TEST", "EVENT"] {
                let teleTAN = try await h.newTeleTAN(type: type)
                let token = try #require(try await h.register(teleTAN: teleTAN).json["registrationToken"] as? String)
                let tan = try #require(try await h.tan(token).json["tan"] as? String)
                let verified = try await h.verify(tan)
                #expect(verified.status == 200)
                #expect(verified.header("X-CWA-TELETAN-TYPE") == type)
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func aBatchOfTANsGetsOneVerdictEachInOrder(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let fromGUID = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let token = try #require(try await h.register(teleTAN: try await h.newTeleTAN(type: "EVENT")).json["registrationToken"] as? String)
            let fromEvent = try #require(try await h.tan(token).json["tan"] as? String)
            let used = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            try #require(try await h.verify(used).status == 200)
            let unknown = Codes.uuidV4(using: SystemRandomSource())

            let response = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [fromGUID, unknown, fromEvent, used, fromGUID]])
            Covers.status(200, of: "POST /version/v1/tans/verify", response)
            let verdicts = try #require(response.json["verdicts"] as? [[String: Any]])
            #expect(verdicts.map { $0["valid"] as? Bool } == [true, false, true, false, false])
            #expect(verdicts.map { $0["teleTanType"] as? String } == [nil, nil, "EVENT", nil, nil])
            // Spent: the single path refuses them now.
            #expect(try await h.verify(fromGUID).status == 404)
            #expect(try await h.verify(fromEvent).status == 404)
        }
    }

    @Test(arguments: TestDatabase.all)
    func badTANBatchesAreRefusedWithTheReasonAndSpendNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let tan = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let random = { Codes.uuidV4(using: SystemRandomSource()) }
            let empty = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [String]()])
            #expect(empty.status == 400)
            #expect(empty.json["error"] as? String == "invalid_tan")
            let bad = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [tan, "not-a-uuid"]])
            Covers.status(400, of: "POST /version/v1/tans/verify", bad)
            #expect((bad.json["message"] as? String)?.contains("tans[1]") == true)
            let tooMany = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [tan] + (0..<TanVerificationBatch.maxTANs).map { _ in random() }])
            Covers.status(413, of: "POST /version/v1/tans/verify", tooMany)
            #expect(tooMany.json["error"] as? String == "too_many_tans")
            for body in ["{", "{\"tans\": 1}", "{\"tans\": [1]}", "{}", "[]"] {
                let response = try await h.internal.postRaw("/version/v1/tans/verify", Array(body.utf8))
                #expect(response.status == 400, "body: \(body)")
                #expect(response.json["error"] != nil, "body: \(body)")
            }
            let onAppListener = try await h.app.postJSON("/version/v1/tans/verify", ["tans": [tan]])
            #expect(onAppListener.status == 404)
            // None of the refused requests spent the TAN.
            #expect(try await h.verify(tan).status == 200)
            let full = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": (0..<TanVerificationBatch.maxTANs).map { _ in random() }])
            #expect(full.status == 200)
            #expect((full.json["verdicts"] as? [Any])?.count == TanVerificationBatch.maxTANs)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aVerificationWithARedemptionKeyCanBeRepeatedForAnHour(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let (x, y) = (String(repeating: "0a", count: 16), String(repeating: "1b", count: 16))
            let token = try #require(try await h.register(teleTAN: try await h.newTeleTAN(type: "TEST")).json["registrationToken"] as? String)
            let tan = try #require(try await h.tan(token).json["tan"] as? String)
            let first = try await h.verify(tan, redemptionKey: x)
            #expect(first.status == 200)
            #expect(first.header("X-CWA-TELETAN-TYPE") == "TEST")
            // A retry whose first answer was lost gets the same answer.
            let repeated = try await h.verify(tan, redemptionKey: x)
            #expect(repeated.status == 200)
            #expect(repeated.header("X-CWA-TELETAN-TYPE") == "TEST")
            let batch = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [tan, tan], "redemptionKeys": [y, x]])
            #expect((batch.json["verdicts"] as? [[String: Any]])?.map { $0["valid"] as? Bool } == [false, true])
            // Any other verification is a second use.
            #expect(try await h.verify(tan, redemptionKey: y).status == 404)
            #expect(try await h.verify(tan).status == 404)
            h.clock.advance(by: 3600)
            #expect(try await h.verify(tan, redemptionKey: x).status == 404)
        }
    }

    @Test(arguments: TestDatabase.all)
    func badRedemptionKeysAreRefusedAndSpendNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let tan = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let key = String(repeating: "c", count: 32)
            for bad in [String(repeating: "C", count: 32), String(repeating: "c", count: 31), String(repeating: "c", count: 33), ""] {
                let single = try await h.verify(tan, redemptionKey: bad)
                #expect(single.status == 400, "key: \(bad)")
                #expect(single.json["error"] != nil, "key: \(bad)")
            }
            let uneven = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [tan, tan], "redemptionKeys": [key]])
            #expect(uneven.status == 400)
            #expect(uneven.json["error"] as? String == "invalid_redemption_key")
            let malformed = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [tan, tan], "redemptionKeys": [key, "x"]])
            #expect(malformed.status == 400)
            #expect(malformed.json["error"] != nil)
            for body in [#"{"tan": "\#(tan)", "redemptionKey": 1}"#, #"{"tans": ["\#(tan)"], "redemptionKeys": "\#(key)"}"#] {
                let path = body.contains("tans") ? "/version/v1/tans/verify" : "/version/v1/tan/verify"
                #expect(try await h.internal.postRaw(path, Array(body.utf8)).status == 400, "body: \(body)")
            }
            #expect(try await h.verify(tan, redemptionKey: key).status == 200)
        }
    }

    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentVerificationsOfOneTANHaveOneWinner(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let tan = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let statuses = try await h.race { try await $0.verify(tan).status }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 404 }.count == 49)
            // Spent once in the database: the one TAN row is redeemed.
            #expect(try await h.rows("tans") == 1)
            #expect(try await h.redeemedTANs() == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentTANRequestsForOneTokenHaveOneWinner(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.registeredToken(result: 2)
            let statuses = try await h.race { try await $0.tan(token).status }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.filter { $0 == 400 }.count == 49)
            try #require(try await h.rows("tans") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func testResultDownIsAFast500(kind: TestDatabase) async throws {
        // Test-result's timeout is ten minutes, far past the test client's 30 s: an answer at all proves that the
        // refused connection was not waited out.
        try await VerificationHarness.run(on: kind, environment: ["TESTRESULT_TIMEOUT": "600s"], testResultDown: true) { h in
            let token = try #require(try await h.register(guid: VerificationHarness.hashedGUID()).json["registrationToken"] as? String)
            let response = try await h.testResult(token)
            Covers.status(500, of: "POST /version/v1/testresult", response)
            #expect(response.json["error"] as? String == "dependency_unavailable")
            try #require(try await h.tan(token).status == 500)
            try #require(try await h.rows("tans") == 0)
            try #require(try await h.management.get("/health/ready").status == 503)
        }
    }

    @Test(arguments: TestDatabase.all)
    func retentionForgetsOldSessionsButRemembersUsedKeys(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            try await h.labPosts(guid, result: 2)
            let token = try #require(try await h.register(guid: guid).json["registrationToken"] as? String)
            try #require(try await h.tan(token).status == 201)
            _ = try await h.newTeleTAN()
            let retention = VerificationRetention(database: h.database, lifetimes: Lifetimes(), rateLimitWindow: .seconds(3600))
            h.clock.advance(by: 20 * 86400)
            // The expired teleTAN goes first; sessions and TANs stay for 21 days.
            // With the teleTAN, the issuance counters of its window (the officer's and everyone's).
            try #require(try await retention.run(now: h.clock.now()) == ["app_sessions": 0, "tans": 0, "teletans": 1, "used_keys": 0, "teletan_issuance_counts": 2, "one_time_codes": 0])
            h.clock.advance(by: 2 * 86400)
            let deleted = try await retention.run(now: h.clock.now())
            #expect(deleted == ["app_sessions": 1, "tans": 1, "teletans": 0, "used_keys": 0, "teletan_issuance_counts": 0, "one_time_codes": 0])
            try #require(try await h.testResult(token).status == 400)
            // The GUID stays used while test-result may still answer for it.
            try #require(try await h.register(guid: guid).status == 400)
            h.clock.advance(by: 40 * 86400)
            try #require(try await retention.run(now: h.clock.now())["used_keys"] == 1)
        }
    }
}
