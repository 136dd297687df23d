import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

@Suite struct FakeRequestTests {
    /// Status, header names and body size of a response: what an observer of the encrypted traffic could compare.
    struct Shape: Equatable {
        let status: Int
        let headerNames: [String]
        let size: Int

        init(_ response: TestResponse) {
            status = response.status
            headerNames = response.headers.map { $0.name.lowercased() }.filter { $0 != "date" }.sorted()
            size = response.body.count
        }
    }

    @Test(arguments: TestDatabase.all)
    func fakeResponsesLookLikeRealOnesAndChangeNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            try await h.labPosts(guid, result: 2)
            let realRegistration = try await h.register(guid: guid)
            let token = try #require(realRegistration.json["registrationToken"] as? String)
            let realResult = try await h.testResult(token)
            let realTAN = try await h.tan(token)
            let rowsBefore = [try await h.rows("app_sessions"), try await h.rows("used_keys"), try await h.rows("tans")]

            let fakeRegistration = try await h.register(guid: VerificationHarness.hashedGUID(), fake: "1")
            let fakeResult = try await h.testResult(Codes.uuidV4(using: SystemRandomSource()), fake: "1")
            let fakeTAN = try await h.tan(Codes.uuidV4(using: SystemRandomSource()), fake: "1")
            // A fake for an already used key still succeeds: nothing was looked up.
            let fakeAgain = try await h.register(guid: guid, fake: "1")

            #expect(Shape(fakeRegistration) == Shape(realRegistration))
            #expect(Shape(fakeAgain) == Shape(realRegistration))
            #expect(Shape(fakeResult) == Shape(realResult))
            #expect(Shape(fakeTAN) == Shape(realTAN))
            #expect(Shape(realRegistration).size == ResponseSizes.registrationToken)
            #expect(Codes.isUUIDv4(try #require(fakeRegistration.json["registrationToken"] as? String)))
            #expect(Codes.isUUIDv4(try #require(fakeTAN.json["tan"] as? String)))
            let rowsAfter = [try await h.rows("app_sessions"), try await h.rows("used_keys"), try await h.rows("tans")]
            #expect(rowsAfter == rowsBefore)
            // The fake TAN is worthless.
            try #require(try await h.verify(try #require(fakeTAN.json["tan"] as? String)).status == 404)
        }
    }

    /// Fake polls and TAN requests make decoy lookups (for their timing); a failed one changes nothing an observer
    /// sees: the fakes look as they do while test-result answers.
    @Test(arguments: TestDatabase.all)
    func fakesAnswerAlikeWhileTheTestResultServiceIsDown(kind: TestDatabase) async throws {
        func fakeShapes(_ h: VerificationHarness) async throws -> [Shape] {
            [
                Shape(try await h.testResult(Codes.uuidV4(using: SystemRandomSource()), fake: "1")),
                Shape(try await h.tan(Codes.uuidV4(using: SystemRandomSource()), fake: "1")),
            ]
        }
        var usual: [Shape] = []
        var whileDown: [Shape] = []
        try await VerificationHarness.run(on: kind) { usual = try await fakeShapes($0) }
        try await VerificationHarness.run(on: kind, testResultDown: true) { whileDown = try await fakeShapes($0) }
        #expect(usual.map(\.status) == [200, 201])
        #expect(usual.map(\.size) == [ResponseSizes.testResult, ResponseSizes.tan])
        #expect(whileDown == usual)
    }

    @Test(arguments: TestDatabase.all)
    func fakesStillValidateTheBodyShape(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try #require(try await h.app.postJSON("/version/v1/registrationToken", ["keyType": "GUID"], headers: [("cwa-fake", "1")]).status == 400)
            try #require(try await h.app.postRaw("/version/v1/testresult", Array("{".utf8), headers: [("cwa-fake", "1")]).status == 400)
            // An ill-formed registration token is refused alike, fake or real.
            for path in ["/version/v1/testresult", "/version/v1/tan"] {
                for fake in ["0", "1"] {
                    let response = try await h.app.postJSON(path, ["registrationToken": "not-a-uuid"], headers: [("cwa-fake", fake)])
                    #expect(response.status == 400, "\(path), cwa-fake \(fake)")
                    #expect(response.json["error"] as? String == "unknown_registration_token", "\(path), cwa-fake \(fake)")
                }
            }
        }
    }

    @Test func responsesOfEveryLengthPadToTheSameSize() throws {
        let random = SeededRandomSource(seed: 3)
        let encoder = ResponsePadding.measuringEncoder()
        for labId in [nil, "l", String(repeating: "L", count: 64)] {
            for sc in [Int64(0), 1_750_000_000, Int64.max] {
                let response = ResponsePadding.padded(targetSize: ResponseSizes.testResult, random: random) {
                    Components.Schemas.TestResultResponse(testResult: 9, sc: sc, labId: labId, responsePadding: $0)
                }
                #expect(try encoder.encode(response).count == ResponseSizes.testResult)
            }
        }
    }
}
