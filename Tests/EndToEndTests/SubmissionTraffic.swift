import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
import Testing

/// One real submission of the traffic: its TAN, the key bytes it carries (distinct from every other's, so that
/// the database shows which submissions were stored) and how it was answered.
struct SubmissionAttempt: Sendable {
    let tan: String
    let keyData: [Data]
    let body: [UInt8]
    /// The HTTP status, or nil when no answer came within the client's timeout (a hang).
    var status: Int?
    var errorCode: String?
    var clientError: String?
    var sentAt: ContinuousClock.Instant
    var answeredAt: ContinuousClock.Instant

    var isServerError: Bool { status.map { (500...599).contains($0) } ?? false }
}

/// Phones submitting keys over real HTTP while a fault is injected: TANs minted through the real flow, then many
/// submissions at once, a fault in the middle, and the answers kept for the audit.
struct SubmissionTraffic {
    /// Where the phones and the lab send their requests: the services themselves, or a balancer in front of them.
    struct Entry: Sendable {
        var verification: Int
        var labs: Int
        var submission: Int
    }

    let stack: EndToEndStack
    let entry: Entry

    init(stack: EndToEndStack, entry: Entry? = nil) {
        self.stack = stack
        self.entry = entry ?? Entry(verification: stack.ports["verification"]!, labs: stack.ports["testresult"]!, submission: stack.ports["submission"]!)
    }
    /// How long the test waits for one answer: far beyond every configured downstream deadline (3 s per
    /// verification attempt), so that reaching it means a hang.
    static let answerTimeout: Int64 = 45

    /// `count` TANs for positive PCR results, each through lab upload → registration token → TAN.
    func mintTANs(_ count: Int) async throws -> [String] {
        let app = TestHTTPClient(port: entry.verification)
        let labs = TestHTTPClient(port: entry.labs)
        let guids = (0..<count).map { _ in SecretHash.sha256Hex(UUID().uuidString) }
        let results = guids.map { ["id": $0, "result": 2] as [String: Any] }
        let upload = try await labs.postJSON("/api/v1/lab/results", ["testResults": results], headers: [("Authorization", "Bearer \(stack.labKey)")])
        try #require(upload.status == 204, "lab upload: \(upload.status) \(upload.text)")
        var tans: [String] = []
        for guid in guids {
            let registration = try await app.postJSON("/version/v1/registrationToken", ["key": guid, "keyType": "GUID"], headers: [("cwa-fake", "0")])
            let token = try #require(registration.json["registrationToken"] as? String, "registration: \(registration.status) \(registration.text)")
            let issued = try await app.postJSON("/version/v1/tan", ["registrationToken": token], headers: [("cwa-fake", "0")])
            tans.append(try #require(issued.json["tan"] as? String, "tan: \(issued.status) \(issued.text)"))
        }
        return tans
    }

    /// A submission of three daily keys whose bytes no other submission shares.
    static func attempt(tan: String) throws -> SubmissionAttempt {
        let today = Int32(Date().timeIntervalSince1970 / 600) / 144 * 144
        var payload = SubmissionPayload()
        var keyData: [Data] = []
        for day in 1...3 {
            var key = TemporaryExposureKey()
            let bytes = withUnsafeBytes(of: UUID().uuid) { Data($0) }
            key.keyData = bytes
            key.rollingStartIntervalNumber = today - Int32(day) * 144
            key.transmissionRiskLevel = 6
            payload.keys.append(key)
            keyData.append(bytes)
        }
        let now = ContinuousClock.now
        return SubmissionAttempt(tan: tan, keyData: keyData, body: try payload.serializedBytes(), sentAt: now, answeredAt: now)
    }

    /// Sends `attempt` once and records the answer; a transport error (no answer in time) is recorded, not thrown.
    func send(_ attempt: SubmissionAttempt) async -> SubmissionAttempt {
        var result = attempt
        let submission = TestHTTPClient(port: entry.submission)
        result.sentAt = .now
        do {
            let response = try await submission.request(
                .POST, "/version/v1/diagnosis-keys",
                headers: [("cwa-fake", "0"), ("cwa-authorization", attempt.tan), ("Content-Type", "application/x-protobuf")],
                body: attempt.body, timeout: .seconds(Self.answerTimeout)
            )
            result.status = response.status
            result.errorCode = response.json["error"] as? String
        } catch {
            result.status = nil
            result.clientError = "\(error)"
        }
        result.answeredAt = .now
        return result
    }

    /// Sends one submission per TAN, `concurrency` at a time (each worker pausing `pacing` between its requests,
    /// so that traffic is still flowing when the fault strikes), runs `fault` once `faultAfter` answers have come
    /// back, and stops starting new submissions once `afterFault` answers have come back after `fault` returned
    /// (or the TANs run out). Returns every attempt made and when the fault ran.
    func run(
        tans: [String], concurrency: Int = 6, pacing: Duration = .milliseconds(100),
        faultAfter: Int, afterFault: Int, fault: @escaping @Sendable () async throws -> Void
    ) async throws -> (attempts: [SubmissionAttempt], fault: ClosedRange<ContinuousClock.Instant>) {
        let queue = TrafficQueue(try tans.map(Self.attempt))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while let next = await queue.next() {
                        await queue.record(await send(next))
                        try await Task.sleep(for: pacing)
                    }
                }
            }
            group.addTask {
                await queue.waitForAnswers(faultAfter)
                let start = ContinuousClock.now
                try await fault()
                await queue.faultEnded(start...ContinuousClock.now, thenStopAfter: afterFault)
            }
            try await group.waitForAll()
            let window = try #require(await queue.faultWindow, "the fault did not run: too few TANs for faultAfter")
            return (await queue.answered, window)
        }
    }
}

/// The shared state of the traffic's workers: the submissions not yet sent, the answers, the fault's window.
actor TrafficQueue {
    private var pending: [SubmissionAttempt]
    private(set) var answered: [SubmissionAttempt] = []
    private(set) var faultWindow: ClosedRange<ContinuousClock.Instant>?
    private var stopAt: Int?
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(_ attempts: [SubmissionAttempt]) { pending = attempts.reversed() }

    func next() -> SubmissionAttempt? {
        if let stopAt, answered.count >= stopAt { return nil }
        return pending.popLast()
    }

    func record(_ attempt: SubmissionAttempt) {
        answered.append(attempt)
        resumeWaiters()
    }

    /// Returns once `count` answers have come back, or when no more can come.
    func waitForAnswers(_ count: Int) async {
        // With every TAN already sent the fault runs at once, so that the test fails on its own assertions
        // instead of hanging.
        if answered.count >= count || pending.isEmpty { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    func faultEnded(_ window: ClosedRange<ContinuousClock.Instant>, thenStopAfter more: Int) {
        faultWindow = window
        stopAt = answered.count + more
    }

    private func resumeWaiters() {
        // With every TAN sent there will be no more answers: let the fault run anyway, so that the test fails
        // on its own assertions instead of hanging.
        let exhausted = pending.isEmpty
        let ready = waiters.filter { answered.count >= $0.count || exhausted }
        waiters.removeAll { answered.count >= $0.count || exhausted }
        for waiter in ready { waiter.continuation.resume() }
    }
}
