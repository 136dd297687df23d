import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
import Testing

/// The executables as separate processes over real HTTP, on SQLite and on PostgreSQL.
@Suite(.serialized) struct EndToEndTests {
    @Test(arguments: TestDatabase.all)
    func theDemoStoryHoldsAgainstSeparateProcesses(kind: TestDatabase) async throws {
        try await EndToEndStack.run(on: kind) { stack in
            let environment = stack.demoEnvironment
            let demo = try await ServiceProcess.run("exposure-suite", ["demo"], environment: environment)
            #expect(demo.status == 0, "\(demo.output)\n\(stack.logs)")
            #expect(demo.output.contains("is the same use of the TAN: 200"))
            #expect(demo.output.contains("other keys with the same TAN are refused: 403"))
            #expect(demo.output.contains("verifies the ECDSA P-256 signature: valid"))
            #expect(demo.output.contains("exchanges it for a registration token: 201"))
            #expect(demo.output.contains("Every step held."))
            // A key the lab service does not know stops the demo at its first step, saying where the key came from.
            var wrongKey = environment
            wrongKey["DEMO_LAB_API_KEY"] = "not-a-key"
            let refused = try await ServiceProcess.run("exposure-suite", ["demo"], environment: wrongKey)
            #expect(refused.status != 0)
            #expect(refused.output.contains("the lab's upload was answered 401"), "\(refused.output)")
            #expect(refused.output.contains("The lab key came from DEMO_LAB_API_KEY."), "\(refused.output)")
            // No log line of any service carries a secret of the story (tokens and TANs are UUIDs, GUIDs are 64 hex
            // characters) or a client address (the only addresses logged are the listeners' own, at start-up).
            let lines = stack.logs.split(separator: "\n").map(String.init)
            #expect(!lines.isEmpty)
            // The teleTAN the officer read out, without the grouping the portal shows it in.
            let shown = try #require(demo.output.split(separator: "\n").first { $0.contains("reads it to the patient: ") })
            let teleTAN = String(shown.split(separator: ": ").last!).filter { $0.isLetter || $0.isNumber }
            #expect(teleTAN.count == 10, "\(shown)")
            for line in lines {
                #expect(!line.contains(stack.labKey), "\(line)")
                #expect(!line.contains(stack.officer.password), "\(line)")
                #expect(!line.filter { $0.isLetter || $0.isNumber }.contains(teleTAN), "\(line)")
                #expect(line.firstMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) == nil, "\(line)")
                #expect(line.firstMatch(of: /[0-9a-fA-F]{64}/) == nil, "\(line)")
                if !line.contains("listening") {
                    #expect(line.firstMatch(of: /\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/) == nil, "\(line)")
                }
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func failurePathsAnswerClearlyAndLoseNothing(kind: TestDatabase) async throws {
        // Verification waits up to ten minutes for test-result, far past the test client's 30 s: the poll below
        // answered at all proves that the refused connection was not waited out.
        try await EndToEndStack.run(on: kind, overrides: ["verification-service": ["TESTRESULT_TIMEOUT": "600s"]]) { stack in
            let app = TestHTTPClient(port: stack.ports["verification"]!)
            let labs = TestHTTPClient(port: stack.ports["testresult"]!)
            let submission = TestHTTPClient(port: stack.ports["submission"]!)
            let fake = [("cwa-fake", "0")]

            // A negative result asks for a TAN: 400.
            let negative = SecretHash.sha256Hex(UUID().uuidString)
            try #require(try await labs.postJSON("/api/v1/lab/results", ["testResults": [["id": negative, "result": 1]]], headers: [("Authorization", "Bearer \(stack.labKey)")]).status == 204)
            let negativeToken = try #require(try await app.postJSON("/version/v1/registrationToken", ["key": negative, "keyType": "GUID"], headers: fake).json["registrationToken"] as? String)
            let refused = try await app.postJSON("/version/v1/tan", ["registrationToken": negativeToken], headers: fake)
            #expect(refused.status == 400)

            // A wrong TAN: 403, nothing stored.
            let today = Int32(Date().timeIntervalSince1970 / 600) / 144 * 144
            var payload = SubmissionPayload()
            for day in 1...3 {
                var key = TemporaryExposureKey()
                key.keyData = Data((0..<16).map { UInt8($0 * day) })
                key.rollingStartIntervalNumber = today - Int32(day) * 144
                key.transmissionRiskLevel = 6
                payload.keys.append(key)
            }
            let body: [UInt8] = try payload.serializedBytes()
            let wrong = try await submission.postRaw("/version/v1/diagnosis-keys", body, headers: [("cwa-fake", "0"), ("cwa-authorization", Codes.uuidV4(using: SystemRandomSource()))], contentType: "application/x-protobuf")
            #expect(wrong.status == 403)

            // A real TAN, then verification dies before the upload: 500, nothing stored, the TAN still works later.
            let positive = SecretHash.sha256Hex(UUID().uuidString)
            try #require(try await labs.postJSON("/api/v1/lab/results", ["testResults": [["id": positive, "result": 2]]], headers: [("Authorization", "Bearer \(stack.labKey)")]).status == 204)
            let token = try #require(try await app.postJSON("/version/v1/registrationToken", ["key": positive, "keyType": "GUID"], headers: fake).json["registrationToken"] as? String)
            let tan = try #require(try await app.postJSON("/version/v1/tan", ["registrationToken": token], headers: fake).json["tan"] as? String)
            stack.kill("verification-service")
            let down = try await submission.postRaw("/version/v1/diagnosis-keys", body, headers: [("cwa-fake", "0"), ("cwa-authorization", tan)], contentType: "application/x-protobuf")
            #expect(down.status == 500)
            #expect(down.json["error"] as? String == "dependency_unavailable")
            try #require(try await stack.storedKeys() == 0)
            try await stack.start("verification-service")
            let retried = try await submission.postRaw("/version/v1/diagnosis-keys", body, headers: [("cwa-fake", "0"), ("cwa-authorization", tan)], contentType: "application/x-protobuf")
            #expect(retried.status == 200)
            try #require(try await stack.storedKeys() == 3)

            // test-result dies while a phone polls: a 500 with a JSON error, without waiting out the timeout.
            stack.kill("testresult-service")
            let poll = try await app.postJSON("/version/v1/testresult", ["registrationToken": token], headers: fake)
            #expect(poll.status == 500)
            #expect(poll.json["error"] as? String == "dependency_unavailable")
        }
    }
}
