import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification

/// What verification answers when its database fails: a JSON 500 on every endpoint, and nothing used up that the
/// app or the portal would need for its retry once the database is back.
@Suite struct DatabaseFailureTests {
    @Test(arguments: TestDatabase.all)
    func registrationAndPollingAnswer500AndUseNothingUp(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            try await h.labPosts(guid, result: 2)
            // The GUID is marked used before the session is stored, in one transaction: a failed session leaves the
            // GUID free.
            try await FailureInjection.fail(.insert, on: "app_sessions", in: h.database)
            Covers.status(500, of: "POST /version/v1/registrationToken", try await h.register(guid: guid), error: "internal_error")
            let teleTAN = try await h.newTeleTAN()
            try await h.register(teleTAN: teleTAN).expectError(500, "internal_error")
            try await FailureInjection.remove(from: "app_sessions", in: h.database)
            #expect(try await h.rows("used_keys") == 0)

            let token = try #require(try await h.register(guid: guid).json["registrationToken"] as? String)
            #expect(try await h.register(teleTAN: teleTAN).status == 201)

            // A session that cannot be read is no "pending".
            try await FailureInjection.withoutTable("app_sessions", in: h.database) {
                Covers.status(500, of: "POST /version/v1/testresult", try await h.testResult(token), error: "internal_error")
            }
            #expect(try await h.testResult(token).json["testResult"] as? Int == 2)
        }
    }

    @Test(arguments: TestDatabase.all)
    func tanIssuanceAndVerificationAnswer500AndSpendNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.registeredToken(result: 2)
            try await FailureInjection.fail(.insert, on: "tans", in: h.database)
            Covers.status(500, of: "POST /version/v1/tan", try await h.tan(token), error: "internal_error")
            try await FailureInjection.remove(from: "tans", in: h.database)
            let tan = try #require(try await h.tan(token).json["tan"] as? String)

            try await FailureInjection.fail(.update, on: "tans", in: h.database)
            Covers.status(500, of: "POST /version/v1/tan/verify", try await h.verify(tan), error: "internal_error")
            Covers.status(500, of: "POST /version/v1/tans/verify", try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [tan]]), error: "internal_error")
            try await FailureInjection.remove(from: "tans", in: h.database)
            #expect(try await h.verify(tan).status == 200)
        }
    }

    @Test(arguments: TestDatabase.all)
    func teleTANIssuanceAnswers500AndCountsNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_RATE_LIMIT": "1"]) { h in
            let officer = try await h.officerToken(roles: ["c19hotline"])
            try await FailureInjection.fail(.insert, on: "teletans", in: h.database)
            Covers.status(500, of: "POST /version/v1/tan/teletan", try await h.createTeleTAN(token: officer, type: "TEST"), error: "internal_error")
            try await FailureInjection.remove(from: "teletans", in: h.database)
            // The failed request took none of the window's one teleTAN.
            #expect(try await h.createTeleTAN(token: officer, type: "TEST").status == 201)
        }
    }
}
