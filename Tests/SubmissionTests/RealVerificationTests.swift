import ExposureCore
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Submission
@testable import SubmissionCore
@testable import TestResult
@testable import Verification
@testable import VerificationDomain

/// Submission against the real verification and test-result services over HTTP: the TAN a phone gets for a positive
/// test is spent exactly once (a repeat of the same submission is that one use), a fake upload spends none, and an
/// EVENT teleTAN's TAN cannot upload keys. `TwoPhaseRecoveryTests` covers the failures between the two phases.
@Suite struct RealVerificationTests {
    func submit(_ stack: RealVerificationStack, tan: String, firstByte: UInt8) async throws -> TestResponse {
        let today = Payloads.today(Date())
        let keys = (0..<3).map { Payloads.key(firstByte + UInt8($0), today: today, daysAgo: Int32($0 + 1)) }
        return try await stack.submission.postRaw(
            SubmissionHarness.path, Payloads.bytes(keys),
            headers: [("cwa-fake", "0"), ("cwa-authorization", tan)], contentType: "application/x-protobuf"
        )
    }

    @Test(arguments: TestDatabase.all)
    func aPositiveTestsTANUploadsOnce(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let guid = SecretHash.sha256Hex(UUID().uuidString)
            let lab = try await stack.lab.postJSON("/api/v1/lab/results", ["testResults": [["id": guid, "result": 2]]], headers: [("Authorization", "Bearer \(stack.labKey)")])
            #expect(lab.status == 204)
            let tan = try await stack.tan(for: ["key": guid, "keyType": "GUID"])
            let first = try await submit(stack, tan: tan, firstByte: 1)
            #expect(first.status == 200)
            let again = try await submit(stack, tan: tan, firstByte: 10)
            #expect(again.status == 403)
            // The same submission again, as an app sends it when the first answer did not reach it: accepted as a
            // repeat of the first, storing nothing twice.
            let repeated = try await submit(stack, tan: tan, firstByte: 1)
            #expect(repeated.status == 200)
            let stored = try await stack.store.count()
            #expect(stored == 3)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aVerificationAnswerLostBehindAProxyIsRecoveredByTheRetry(kind: TestDatabase) async throws {
        // The proxy passes the first confirmation on and answers 504; verification has spent the TAN by then. The
        // retry of the confirmation is answered as the first was.
        let proxy = AnswerDroppingProxy(
            paths: ["/version/v1/tans/confirm"], passing: ["/version/v1/tans/reserve", "/version/v1/tans/release"], dropping: 1
        )
        try await RealVerificationStack.run(kind, proxy: proxy) { stack in
            let tan = try #require(try await stack.positiveTANs(1).first)
            let response = try await submit(stack, tan: tan, firstByte: 50)
            #expect(response.status == 200, "\(response.text)")
            #expect(proxy.passedCount == 2)
            let stored = try await stack.store.count()
            #expect(stored == 3)
            // Spent for anything else.
            #expect(try await submit(stack, tan: tan, firstByte: 60).status == 403)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aFakeUploadCarryingAValidTANLeavesItUnspent(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let tan = try #require(try await stack.positiveTANs(1).first)
            // The fake's decoy asks verification about a random TAN, never about the one in its header.
            let fake = try await stack.submission.postRaw(
                SubmissionHarness.path, [0xFF], headers: [("cwa-fake", "1"), ("cwa-authorization", tan)], contentType: "application/x-protobuf")
            #expect(fake.status == 200)
            let real = try await submit(stack, tan: tan, firstByte: 40)
            #expect(real.status == 200)
            let stored = try await stack.store.count()
            #expect(stored == 3)
        }
    }

    @Test(arguments: TestDatabase.all)
    func anEventTeleTANsTANCannotUploadKeys(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: stack.officerKey)
            let token = try await keys.sign(OfficerClaims(
                exp: .init(value: Date().addingTimeInterval(300)), iss: "test-officers", aud: "verification", sub: "officer-1", realm_access: .init(roles: ["c19hotline_event", "c19hotline"])))
            for (type, expected) in [("EVENT", 403), ("TEST", 200)] {
                let issued = try await stack.verificationInternal.request(.POST, "/version/v1/tan/teletan", headers: [("Authorization", "Bearer \(token)"), ("X-CWA-TELETAN-TYPE", type)])
                let teleTAN = try #require(issued.json["value"] as? String)
                let tan = try await stack.tan(for: ["key": teleTAN, "keyType": "TELETAN"])
                let response = try await submit(stack, tan: tan, firstByte: type == "EVENT" ? 20 : 30)
                #expect(response.status == expected, "\(type)")
            }
            let stored = try await stack.store.count()
            #expect(stored == 3)
        }
    }
}
