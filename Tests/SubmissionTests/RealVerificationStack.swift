import ExposureCore
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Submission
@testable import TestResult
@testable import Verification

/// Submission wired to the real verification and test-result services over HTTP, each on a fresh database.
struct RealVerificationStack {
    let submission: TestHTTPClient
    let verification: TestHTTPClient
    let verificationInternal: TestHTTPClient
    let lab: TestHTTPClient
    let labKey: String
    let officerKey: ES256PrivateKey
    let store: DiagnosisKeyStore
    /// The clock every service of the stack reads.
    let clock: ManualClock
    /// The management listeners, by service name.
    let management: [String: TestHTTPClient]
    /// Every listener of the stack, named `service/listener`.
    let listeners: [String: TestHTTPClient]

    /// With `proxy`, submission reaches verification through it.
    static func run(_ kind: TestDatabase, proxy: AnswerDroppingProxy? = nil, _ body: (RealVerificationStack) async throws -> Void) async throws {
        let officerKey = ES256PrivateKey()
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("officer-\(UUID().uuidString).pem")
        try officerKey.publicKey.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let clock = ManualClock(Date())
        let environment = TestServices.environment(clock: clock)
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
                            "JWT_PUBLIC_KEY_FILES": "\(keyFile.path)|test-officers|verification", "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys,
                        ]) { $1 }))
                        try await TestServices.withRunning([try await VerificationService.makeBundle(verification, environment: environment)]) { second in
                            let internalPort = await second.bundle(VerificationService.name).port(VerificationService.internalListener)
                            let proxies = await RunningServices.start(proxy.map { [$0.bundle(upstreamPort: internalPort)] } ?? [], logger: TestLogger.quiet)
                            var verificationPort = internalPort
                            if let proxy { verificationPort = await proxies.bundle(proxy.name).port(proxy.listener) }
                            do {
                                let submission = try SubmissionConfiguration(TestServices.settings(common.merging([
                                    "DATABASE_URL": submissionDB.connectionString, "VERIFICATION_URL": "http://127.0.0.1:\(verificationPort)",
                                    "DISTRIBUTION_INTERVAL": "0",
                                ]) { $1 }))
                                let submissionBundle = try await SubmissionService.makeBundle(submission, environment: environment)
                                let database = try await Database.connect(submissionDB, poolSize: 1, logger: TestLogger.quiet)
                                do {
                                    try await TestServices.withRunning([submissionBundle]) { third in
                                        var management: [String: TestHTTPClient] = [:]
                                        var listeners: [String: TestHTTPClient] = [:]
                                        for running in [first, second, third] {
                                            for bundle in running.bundles {
                                                management[bundle.name] = await TestServices.management(running, bundle.name)
                                                for listener in bundle.listeners {
                                                    listeners["\(bundle.name)/\(listener.name)"] = TestHTTPClient(port: await listener.boundPort.value())
                                                }
                                            }
                                        }
                                        try await body(RealVerificationStack(
                                            submission: await TestServices.client(third, SubmissionService.name, SubmissionService.listener),
                                            verification: await TestServices.client(second, VerificationService.name, VerificationService.appListener),
                                            verificationInternal: await TestServices.client(second, VerificationService.name, VerificationService.internalListener),
                                            lab: await TestServices.client(first, TestResultService.name, TestResultService.labListener),
                                            labKey: labKey, officerKey: officerKey, store: DiagnosisKeyStore(database: database),
                                            clock: clock, management: management, listeners: listeners
                                        ))
                                    }
                                } catch {
                                    await database.shutdown()
                                    throw error
                                }
                                await database.shutdown()
                                await proxies.stop()
                            } catch {
                                await proxies.stop()
                                throw error
                            }
                        }
                    }
                }
            }
        }
    }

    /// Registers `registrationBody` as a phone does and exchanges the token for a TAN.
    func tan(for registrationBody: [String: String]) async throws -> String {
        let registration = try await verification.postJSON("/version/v1/registrationToken", registrationBody, headers: [("cwa-fake", "0")])
        let token = try #require(registration.json["registrationToken"] as? String)
        let tan = try await verification.postJSON("/version/v1/tan", ["registrationToken": token], headers: [("cwa-fake", "0")])
        return try #require(tan.json["tan"] as? String)
    }

    /// `count` TANs of positive PCR results, as phones get them: one lab upload, then a registration and a TAN each.
    func positiveTANs(_ count: Int) async throws -> [String] {
        let guids = (0..<count).map { _ in SecretHash.sha256Hex(UUID().uuidString) }
        for batch in stride(from: 0, to: count, by: 1_000) {
            let results = guids[batch..<min(batch + 1_000, count)].map { ["id": $0, "result": 2] as [String: Any] }
            let upload = try await lab.postJSON("/api/v1/lab/results", ["testResults": results], headers: [("Authorization", "Bearer \(labKey)")])
            try #require(upload.status == 204, "\(upload.text)")
        }
        // Eight phones at a time: every answer leaves at the release time of recent real work, so one at a time
        // would spend minutes waiting on suites that need a thousand TANs.
        return try await withThrowingTaskGroup(of: String.self) { group in
            var pending = guids.makeIterator()
            for _ in 0..<8 {
                guard let guid = pending.next() else { break }
                group.addTask { try await tan(for: ["key": guid, "keyType": "GUID"]) }
            }
            var tans: [String] = []
            tans.reserveCapacity(count)
            while let tan = try await group.next() {
                tans.append(tan)
                if let guid = pending.next() { group.addTask { try await self.tan(for: ["key": guid, "keyType": "GUID"]) } }
            }
            return tans
        }
    }
}
