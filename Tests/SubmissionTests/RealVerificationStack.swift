import ExposureCore
import ExposureStack
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Submission
@testable import SubmissionCore
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

    /// With `proxy`, submission reaches verification through it; `settings` go on top of each member's own.
    static func run(
        _ kind: TestDatabase, proxy: AnswerDroppingProxy? = nil, settings: [StackMember: [String: String]] = [:],
        _ body: (RealVerificationStack) async throws -> Void
    ) async throws {
        let officerKey = ES256PrivateKey()
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("officer-\(UUID().uuidString).pem")
        try officerKey.publicKey.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let clock = ManualClock(Date())
        let members: [StackMember] = [.testResult, .verification, .submission]
        try await TestStack.withRunning(members, on: kind, clock: clock, seed: 42, proxies: proxy.map { [.verification: $0] } ?? [:]) { plan in
            plan.trustedOfficerKeys = ["\(keyFile.path)|test-officers|verification"]
            plan.set(.verification, ["TELETAN_HASH_KEYS": TestServices.teleTANHashKeys])
            plan.set(.submission, ["DISTRIBUTION_INTERVAL": "0"].merging(CovidShieldWire.settings) { $1 })
            // Daily statistics reach the database within a second (`SubmissionStatisticsTests`).
            for member in members { plan.set(member, ["STATISTICS_FLUSH_INTERVAL": "1s"]) }
            for (member, variables) in settings { plan.set(member, variables) }
        } _: { stack in
            let labKey = try await stack.addLab("lab-1", clock: clock)
            let database = try await stack.connect(.submission, poolSize: 1)
            do {
                var management: [String: TestHTTPClient] = [:]
                var listeners: [String: TestHTTPClient] = [:]
                for member in members {
                    management[member.rawValue] = stack.management(member)
                    for (listener, port) in stack.ports(of: member) {
                        listeners["\(member.rawValue)/\(listener)"] = TestHTTPClient(port: port)
                    }
                }
                try await body(RealVerificationStack(
                    submission: stack.client(.submission, SubmissionService.listener),
                    verification: stack.client(.verification, VerificationService.appListener),
                    verificationInternal: stack.client(.verification, VerificationService.internalListener),
                    lab: stack.client(.testResult, TestResultService.labListener),
                    labKey: labKey, officerKey: officerKey, store: DiagnosisKeyStore(database: database),
                    clock: clock, management: management, listeners: listeners
                ))
                await database.shutdown()
            } catch {
                await database.shutdown()
                throw error
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
