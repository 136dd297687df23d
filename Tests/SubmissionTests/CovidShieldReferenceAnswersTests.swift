import ExposureCore
import ExposureNaCl
import ExposureProtocol
import ExposureTestSupport
import Foundation
import NIOHTTP1
import Testing

@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield
@testable import SubmissionDomain

/// The CovidShield answers byte for byte as the reference server (Go, gorilla/mux, mid-2020) wrote them and as its own
/// test suite checked them: plain text of `http.Error`, the router's 404 and 405, and bodies read as protobuf
/// whatever their declared type.
@Suite struct CovidShieldReferenceAnswersTests {
    static let day: Int64 = 86_400
    static let goText = "text/plain; charset=utf-8"

    static func expectGoText(_ response: TestResponse, _ status: Int, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, "\(response.request): \(response.status) \(response.text)", sourceLocation: sourceLocation)
        #expect(response.text == text, "\(response.request)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == goText, "\(response.request)", sourceLocation: sourceLocation)
        #expect(response.header("X-Content-Type-Options") == "nosniff", "\(response.request)", sourceLocation: sourceLocation)
    }

    @Test(arguments: TestDatabase.all)
    func everyTextAnswerOfTheRetrievalIsGoPlainText(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let now = harness.nowSeconds
            let today = CovidShieldWire.day(now), yesterday = CovidShieldWire.day(now - Self.day)
            Self.expectGoText(try await harness.retrieveDay(yesterday, hmac: String(repeating: "a", count: 64)), 401, "unauthorized\n")
            Self.expectGoText(try await harness.retrieveDay("2020-30-01"), 400, "invalid date parameter\n")
            Self.expectGoText(try await harness.retrieveDay(today), 404, "use /retrieve-hour for today's data\n")
            Self.expectGoText(try await harness.retrieveDay(CovidShieldWire.day(now + Self.day)), 404, "cannot request future data\n")
            Self.expectGoText(try await harness.retrieveDay(CovidShieldWire.day(now - 15 * Self.day)), 410, "requested data no longer valid\n")
            Self.expectGoText(try await harness.retrieveHour(today, "24"), 400, "invalid hour number\n")
            Self.expectGoText(
                try await harness.retrieveHour(CovidShieldWire.day(now - 2 * Self.day), "23"), 404,
                "use /retrieve-day for data not from today or yesterday\n")
            let currentHour = String(format: "%02d", now / 3600 % 24)
            Self.expectGoText(try await harness.retrieveHour(today, currentHour), 404, "cannot serve data for current hour for privacy reasons\n")
            // The successes keep their own type.
            let served = try await harness.retrieveDay(yesterday)
            #expect(served.status == 200 && served.header("Content-Type") == "application/x-protobuf; delimited=true")
        }
    }

    @Test(arguments: TestDatabase.all)
    func otherMethodsAreRefusedAfterTheHMACAndTheDate(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let yesterday = CovidShieldWire.day(harness.nowSeconds - Self.day)
            let hour = harness.currentHour
            let dayPath = "/retrieve-day/\(yesterday)/\(CovidShieldWire.hmac(yesterday, hour: hour))"
            let hourPath = "/retrieve-hour/\(yesterday)/05/\(CovidShieldWire.hmac("\(yesterday):05", hour: hour))"
            for method: HTTPMethod in [.POST, .PUT, .PATCH, .DELETE] {
                for path in [dayPath, hourPath] {
                    Self.expectGoText(try await harness.client.request(method, path, body: [1, 2, 3]), 405, "method not allowed\n")
                }
                // A wrong HMAC is judged first, a bad date next, as the reference did.
                let forged = "/retrieve-day/\(yesterday)/\(String(repeating: "0", count: 64))"
                Self.expectGoText(try await harness.client.request(method, forged), 401, "unauthorized\n")
                let badDate = "/retrieve-day/2020-30-01/\(CovidShieldWire.hmac("2020-30-01", hour: hour))"
                Self.expectGoText(try await harness.client.request(method, badDate), 400, "invalid date parameter\n")
            }
            // Nothing was served or stored by them.
            #expect(try await harness.client.get(dayPath).status == 200)
            Self.expectGoText(try await harness.client.request(.POST, "/exposure-configuration/ON.json"), 405, "method not allowed\n")
        }
    }

    @Test(arguments: TestDatabase.all)
    func pathsNoReferenceRouteMatchesAreItsPlainNotFound(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let yesterday = CovidShieldWire.day(harness.nowSeconds - Self.day)
            let hmac = CovidShieldWire.hmac(yesterday, hour: harness.currentHour)
            for path in [
                "/retrieve-day/\(yesterday)", "/retrieve-hour/\(yesterday)/05", "/retrieve-hour/\(yesterday)", "/retrieve-day",
                "/retrieve-hour/", "/retrieve-day/2020-5-19/\(hmac)", "/retrieve-hour/\(yesterday)/5/\(hmac)",
                "/exposure-configuration/ON", "/exposure-configuration/O-N.json", "/exposure-configuration/.json",
            ] {
                Self.expectGoText(try await harness.client.get(path), 404, "404 page not found\n")
                Self.expectGoText(try await harness.client.request(.POST, path), 404, "404 page not found\n")
            }
            // The HMAC segment is the rest of the path: with a slash in it, or empty, it is simply wrong.
            for path in ["/retrieve-day/\(yesterday)/\(hmac)/extra", "/retrieve-day/\(yesterday)/05/\(hmac)", "/retrieve-hour/\(yesterday)/05/"] {
                Self.expectGoText(try await harness.client.get(path), 401, "unauthorized\n")
            }
            // The service's other routes keep their JSON 404.
            try await harness.client.get("/retrieve-days/\(yesterday)").expectError(404, "not_found")
        }
    }

    @Test(arguments: TestDatabase.all)
    func claimAndUploadReadProtobufWhateverTheContentTypeSays(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            for (index, contentType) in ["application/x-www-form-urlencoded", "application/json", "text/plain", "application/octet-stream"].enumerated() {
                let app = try CryptoBox.keyPair(using: SystemRandomSource())
                let code = String(format: "%08d", Int.random(in: 0..<100_000_000))
                harness.verification.issueCode(code)
                let claim = try await harness.client.postRaw(
                    "/claim-key", CovidShieldWire.claimRequest(code: code, appKey: app.publicKey), contentType: contentType)
                #expect(claim.status == 200, "\(contentType)")
                #expect(claim.header("Content-Type") == "application/x-protobuf")
                let answer = try Covidshield_KeyClaimResponse(serializedBytes: claim.body)
                let rollingStart = UInt32(harness.nowSeconds / Self.day * 144) - 144
                let payload = CovidShieldWire.upload([CovidShieldWire.key(UInt8(0x40 + index), rollingStart: rollingStart)], timestamp: harness.nowSeconds)
                let sealed = CovidShieldWire.sealed(payload, serverKey: Array(answer.serverPublicKey), app: app)
                let upload = try await harness.client.postRaw("/upload", sealed, contentType: contentType)
                #expect(upload.status == 200 && upload.body == [0x08, 0x00], "\(contentType)")
                #expect(upload.header("Content-Type") == "application/x-protobuf")
            }
            // Garbage of a form type is garbage: the protocol's own refusal, not the service's 415.
            let garbage = try await harness.client.postRaw("/claim-key", Array("a=b".utf8), contentType: "application/x-www-form-urlencoded")
            #expect(garbage.status == 400 && garbage.body == [0x08, 0x01])
            #expect(try await harness.store.all().count == 4)
        }
    }
}
