import ExposureCore
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Submission
@testable import TestResult
@testable import Verification

/// Submission against the real verification and test-result services over HTTP: the TAN a phone gets for a positive
/// test is spent exactly once, and an EVENT teleTAN's TAN cannot upload keys.
@Suite struct RealVerificationTests {
    struct Stack {
        let submission: TestHTTPClient
        let verification: TestHTTPClient
        let verificationInternal: TestHTTPClient
        let lab: TestHTTPClient
        let labKey: String
        let officerKey: ES256PrivateKey
        let store: DiagnosisKeyStore
    }

    func withStack(_ kind: TestDatabase, _ body: (Stack) async throws -> Void) async throws {
        let officerKey = ES256PrivateKey()
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("officer-\(UUID().uuidString).pem")
        try officerKey.publicKey.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let environment = TestServices.environment(clock: ManualClock(Date()))
        try await kind.withFreshDatabaseURL { testResultDB in
            try await kind.withFreshDatabaseURL { verificationDB in
                try await kind.withFreshDatabaseURL { submissionDB in
                    let common = ["PORT": "0", "INTERNAL_PORT": "0", "BIND_HOST": "127.0.0.1"]
                    let testResult = try TestResultConfiguration(TestServices.settings(common.merging(["DATABASE_URL": testResultDB.connectionString]) { $1 }))
                    let labKey = try await TestResultAdmin.addLab("lab-1", configuration: testResult, environment: environment)
                    try await TestServices.withRunning([try await TestResultService.makeBundle(testResult, environment: environment)]) { first in
                        let testResultPort = await first.bundle(TestResultService.name).port(TestResultService.internalListener)
                        let verification = try VerificationConfiguration(TestServices.settings(common.merging([
                            "DATABASE_URL": verificationDB.connectionString, "TESTRESULT_URL": "http://127.0.0.1:\(testResultPort)",
                            "JWT_PUBLIC_KEY_FILES": keyFile.path,
                        ]) { $1 }))
                        try await TestServices.withRunning([try await VerificationService.makeBundle(verification, environment: environment)]) { second in
                            let internalPort = await second.bundle(VerificationService.name).port(VerificationService.internalListener)
                            let submission = try SubmissionConfiguration(TestServices.settings(common.merging([
                                "DATABASE_URL": submissionDB.connectionString, "VERIFICATION_URL": "http://127.0.0.1:\(internalPort)",
                                "DISTRIBUTION_INTERVAL": "0",
                            ]) { $1 }))
                            let submissionBundle = try await SubmissionService.makeBundle(submission, environment: environment)
                            let database = try await Database.connect(submissionDB, poolSize: 1, logger: TestLogger.quiet)
                            do {
                                try await TestServices.withRunning([submissionBundle]) { third in
                                    try await body(Stack(
                                        submission: await TestServices.client(third, SubmissionService.name, SubmissionService.listener),
                                        verification: await TestServices.client(second, VerificationService.name, VerificationService.appListener),
                                        verificationInternal: await TestServices.client(second, VerificationService.name, VerificationService.internalListener),
                                        lab: await TestServices.client(first, TestResultService.name, TestResultService.labListener),
                                        labKey: labKey, officerKey: officerKey, store: DiagnosisKeyStore(database: database)
                                    ))
                                }
                                await database.shutdown()
                            } catch {
                                await database.shutdown()
                                throw error
                            }
                        }
                    }
                }
            }
        }
    }

    func tan(for registrationBody: [String: String], _ stack: Stack) async throws -> String {
        let registration = try await stack.verification.postJSON("/version/v1/registrationToken", registrationBody, headers: [("cwa-fake", "0")])
        let token = try #require(registration.json["registrationToken"] as? String)
        let tan = try await stack.verification.postJSON("/version/v1/tan", ["registrationToken": token], headers: [("cwa-fake", "0")])
        return try #require(tan.json["tan"] as? String)
    }

    func submit(_ stack: Stack, tan: String, firstByte: UInt8) async throws -> TestResponse {
        let today = Payloads.today(Date())
        let keys = (0..<3).map { Payloads.key(firstByte + UInt8($0), today: today, daysAgo: Int32($0 + 1)) }
        return try await stack.submission.postRaw(
            SubmissionHarness.path, Payloads.bytes(keys),
            headers: [("cwa-fake", "0"), ("cwa-authorization", tan)], contentType: "application/x-protobuf"
        )
    }

    @Test(arguments: TestDatabase.all)
    func aPositiveTestsTANUploadsOnce(kind: TestDatabase) async throws {
        try await withStack(kind) { stack in
            let guid = SecretHash.sha256Hex(UUID().uuidString)
            let lab = try await stack.lab.postJSON("/api/v1/lab/results", ["testResults": [["id": guid, "result": 2]]], headers: [("Authorization", "Bearer \(stack.labKey)")])
            #expect(lab.status == 204)
            let tan = try await tan(for: ["key": guid, "keyType": "GUID"], stack)
            let first = try await submit(stack, tan: tan, firstByte: 1)
            #expect(first.status == 200)
            let again = try await submit(stack, tan: tan, firstByte: 10)
            #expect(again.status == 403)
            let stored = try await stack.store.count()
            #expect(stored == 3)
        }
    }

    @Test(arguments: TestDatabase.all)
    func anEventTeleTANsTANCannotUploadKeys(kind: TestDatabase) async throws {
        try await withStack(kind) { stack in
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: stack.officerKey)
            let token = try await keys.sign(OfficerClaims(exp: .init(value: Date().addingTimeInterval(300)), realm_access: .init(roles: ["c19hotline_event", "c19hotline"])))
            for (type, expected) in [("EVENT", 403), ("TEST", 200)] {
                let issued = try await stack.verificationInternal.request(.POST, "/version/v1/tan/teletan", headers: [("Authorization", "Bearer \(token)"), ("X-CWA-TELETAN-TYPE", type)])
                let teleTAN = try #require(issued.json["value"] as? String)
                let tan = try await tan(for: ["key": teleTAN, "keyType": "TELETAN"], stack)
                let response = try await submit(stack, tan: tan, firstByte: type == "EVENT" ? 20 : 30)
                #expect(response.status == expected, "\(type)")
            }
            let stored = try await stack.store.count()
            #expect(stored == 3)
        }
    }
}
