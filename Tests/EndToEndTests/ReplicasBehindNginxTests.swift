import ExposureCore
import ExposureStack
import ExposureTestSupport
import Foundation
import Synchronization
import Testing

/// A deployment in miniature: two replicas each of test-result, verification and submission on one PostgreSQL, nginx
/// in front as the load balancer (and, for the export tree, as a CDN in front of the object store), the export tree in
/// an S3 bucket (moto). The whole story passes through it; then one replica of each is killed while uploads and polls
/// flow, and what the phones were told must match what the databases and the bucket hold.
@Suite(.serialized, .enabled(if: MotoServer.testsRun && NginxBalancer.testsRun))
struct ReplicasBehindNginxTests {
    static let bucket = "exports"
    static let interval = 2

    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func twoReplicasOfEachServiceKeepEveryAnswerWhenOneOfEachDies(kind: TestDatabase) async throws {
        try await MotoServer.run { moto in
            try await moto.client(bucket: Self.bucket).createBucket()
            // The balancer's ports first: the services are configured to call each other through it.
            let front = (
                labs: ServiceProcess.freePort(), testResultInternal: ServiceProcess.freePort(), apps: ServiceProcess.freePort(),
                verificationInternal: ServiceProcess.freePort(), submission: ServiceProcess.freePort()
            )
            let overrides: [String: [String: String]] = [
                "verification-service": ["TESTRESULT_URL": "http://127.0.0.1:\(front.testResultInternal)", "TAN_RESERVATION_LEASE": "10s"],
                "submission-service": moto.settings(bucket: Self.bucket).merging([
                    "VERIFICATION_URL": "http://127.0.0.1:\(front.verificationInternal)", "RECOVERY_INTERVAL": "1s",
                    "SERVE_EXPORTS": "false", "DISTRIBUTION_INTERVAL": "\(Self.interval)s",
                ]) { $1 },
                "portal-service": ["VERIFICATION_URL": "http://127.0.0.1:\(front.verificationInternal)"],
            ]
            try await EndToEndStack.run(on: kind, overrides: overrides) { stack in
                let runner = stack.stack.runner
                var replicas: [StackMember: [String: Int]] = [:]
                for member in [StackMember.testResult, .verification, .submission] {
                    replicas[member] = try await runner.startReplica(of: member).ports
                }
                func both(_ member: StackMember, _ listener: String) -> [Int] {
                    [stack.stack.port(member, listener), replicas[member]![listener]!]
                }
                let sites = [
                    NginxBalancer.Site(port: front.labs, replicas: both(.testResult, "lab")),
                    NginxBalancer.Site(port: front.testResultInternal, replicas: both(.testResult, "internal")),
                    NginxBalancer.Site(port: front.apps, replicas: both(.verification, "app")),
                    NginxBalancer.Site(port: front.verificationInternal, replicas: both(.verification, "internal")),
                    // Phones download the export tree from the CDN, whose origin is the private bucket: the CDN
                    // signs its requests (moto takes any signature, as it takes any credentials).
                    NginxBalancer.Site(port: front.submission, replicas: both(.submission, "app"), routes: [NginxBalancer.Route(
                        prefix: "/version/v1/diagnosis-keys/country/",
                        url: "\(moto.endpoint.absoluteString)/\(Self.bucket)/version/v1/diagnosis-keys/country/",
                        headers: [("Authorization", "AWS4-HMAC-SHA256 Credential=\(MotoServer.accessKeyID)/20260101/\(MotoServer.region)/s3/aws4_request, SignedHeaders=host, Signature=0")]
                    )]),
                ]
                try await NginxBalancer.run(sites) { nginx in
                    try await Self.storyHolds(stack, front: (front.apps, front.labs, front.submission))
                    try await Self.killOneReplicaOfEach(stack, entry: SubmissionTraffic.Entry(
                        verification: front.apps, labs: front.labs, submission: front.submission
                    ), nginx: nginx)
                    try await Self.distributionRanOncePerInterval(stack)
                    try await Self.publishedTreeIsConsistent(moto: moto, stack: stack)
                }
            }
        }
    }

    /// `exposure-suite demo` through the balancer: lab result, registration, TAN, upload, the published file fetched
    /// from the bucket through the CDN route and its signature checked, and the officer's teleTAN.
    static func storyHolds(_ stack: EndToEndStack, front: (apps: Int, labs: Int, submission: Int)) async throws {
        var environment = stack.demoEnvironment
        environment["DEMO_VERIFICATION_URL"] = "http://127.0.0.1:\(front.apps)"
        environment["DEMO_TESTRESULT_URL"] = "http://127.0.0.1:\(front.labs)"
        environment["DEMO_SUBMISSION_URL"] = "http://127.0.0.1:\(front.submission)"
        let demo = try await ServiceProcess.run("exposure-suite", ["demo"], environment: environment)
        try #require(demo.status == 0, "\(demo.output)\n\(stack.logs)")
        #expect(demo.output.contains("verifies the ECDSA P-256 signature: valid"))
        #expect(demo.output.contains("Every step held."))
    }

    /// Uploads (and polls of a test result) flow through the balancer; one replica of each service is killed in the
    /// middle. Every upload answered 200 has its keys published, none is half stored, every failed one can be
    /// retried (no TAN lost), no TAN is spent twice, and polls only ever see their result or the balancer's 502.
    static func killOneReplicaOfEach(_ stack: EndToEndStack, entry: SubmissionTraffic.Entry, nginx: NginxBalancer) async throws {
        let traffic = SubmissionTraffic(stack: stack, entry: entry)
        let audit = SubmissionAudit(stack: stack, traffic: traffic)
        let tans = try await traffic.mintTANs(60)
        let token = try await registeredToken(entry: entry, labKey: stack.labKey)
        let polling = PollingPhone(port: entry.verification, token: token)
        let polls = Task { await polling.pollUntilStopped() }
        let run = try await traffic.run(tans: tans, concurrency: 8, pacing: .milliseconds(20), faultAfter: 12, afterFault: 16) {
            stack.stack.runner.kill(.testResult, replica: 1)
            stack.stack.runner.kill(.verification, replica: 1)
            stack.stack.runner.kill(.submission, replica: 1)
        }
        polling.stop()
        let statuses = await polls.value
        let findings = try await audit.auditWithChangedKeys(run.attempts, settleWithin: .seconds(40), retryDeadline: .seconds(60))
        print("one replica of each killed with \(run.attempts.count) uploads: \(findings); polls \(statuses)")
        #expect(run.attempts.contains { $0.sentAt > run.fault.upperBound }, "no upload after the kill")
        #expect(findings.lostTANs == 0)
        #expect(findings.accepted + findings.failed == run.attempts.count)
        #expect(findings.retriedAndAccepted + findings.storedDespiteFailure == findings.failed)
        // Every TAN the traffic used is spent: by the upload that got its 200, or by the retry. (A TAN is one row, so
        // it is spent at most once; that its keys were published once is the audit's.)
        let redeemed = try await audit.redeemedTANHashes()
        #expect(run.attempts.allSatisfy { redeemed.contains(SecretHash.sha256Hex($0.tan)) })
        // A poll sees the lab's positive result, or the balancer's 502 for one in flight at the replica that died.
        #expect(Set(statuses.keys).isSubset(of: [200, 502]), "polls answered \(statuses)\n\(nginx.errorLog)")
        #expect((statuses[200] ?? 0) > 0)
    }

    /// Each submission replica schedules a distribution every interval; the rounds recorded in their logs are each
    /// run by one replica only.
    static func distributionRanOncePerInterval(_ stack: EndToEndStack) async throws {
        let rounds = stack.logs.split(separator: "\n")
            .filter { $0.contains("distribution round finished") }
            .compactMap { line in line.firstMatch(of: /round=(\d+)/).map { String($0.1) } }
        #expect(rounds.count >= 3, "too few distribution rounds to judge: \(rounds)")
        let repeated = Dictionary(grouping: rounds, by: { $0 }).filter { $0.value.count > 1 }.keys
        #expect(repeated.isEmpty, "rounds run more than once: \(repeated.sorted())")
    }

    /// The bucket, read back into a directory, passes the independent check of the export tree: every index names
    /// files that exist, every file verifies with the export key, and no key file is left that no index names.
    static func publishedTreeIsConsistent(moto: MotoServer, stack: EndToEndStack) async throws {
        // One more round after the traffic, so that the last uploads' keys are in the tree too.
        try await Task.sleep(for: .seconds(Double(interval) * 2))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bucket-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await moto.copyTree(bucket: bucket, to: root)
        let report = try await IndependentTreeCheck(root: root, publicKeyFiles: [stack.exportPublicKeyFile]).run()
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.unlisted.isEmpty, "key files no index names: \(report.unlisted)")
        #expect(!report.files.isEmpty)
    }

    /// A registration token whose lab result (positive) is stored, through the balancer.
    static func registeredToken(entry: SubmissionTraffic.Entry, labKey: String) async throws -> String {
        let guid = SecretHash.sha256Hex(UUID().uuidString)
        let upload = try await TestHTTPClient(port: entry.labs).postJSON(
            "/api/v1/lab/results", ["testResults": [["id": guid, "result": 2]]], headers: [("Authorization", "Bearer \(labKey)")]
        )
        try #require(upload.status == 204)
        let registration = try await TestHTTPClient(port: entry.verification).postJSON(
            "/version/v1/registrationToken", ["key": guid, "keyType": "GUID"], headers: [("cwa-fake", "0")]
        )
        return try #require(registration.json["registrationToken"] as? String)
    }
}

/// A phone polling its test result through the balancer until told to stop; counts the answers by status.
final class PollingPhone: Sendable {
    let client: TestHTTPClient
    let token: String
    private let stopped = Mutex(false)

    init(port: Int, token: String) {
        client = TestHTTPClient(port: port)
        self.token = token
    }

    func stop() { stopped.withLock { $0 = true } }

    func pollUntilStopped() async -> [Int: Int] {
        var statuses: [Int: Int] = [:]
        while !stopped.withLock({ $0 }) {
            let status = (try? await client.postJSON("/version/v1/testresult", ["registrationToken": token], headers: [("cwa-fake", "0")]))?.status ?? 0
            statuses[status, default: 0] += 1
            try? await Task.sleep(for: .milliseconds(50))
        }
        return statuses
    }
}
