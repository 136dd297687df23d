import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

/// What the databases say about a run of `SubmissionTraffic` after a fault, checked against what the phones were
/// told. The hard rules: a submission answered 200 has every one of its keys published; a submission answered 5xx
/// has all of its keys published or none; and the phone's retry of a failed submission is accepted: with the same
/// keys (`audit`), even when verification spent the TAN during the failed attempt, because the retry is the same
/// upload; with other keys (`auditWithChangedKeys`) unless the failed attempt's keys were published. A retry refused
/// with 403 otherwise lost its TAN: it is counted and fails the test.
struct SubmissionAudit {
    let stack: EndToEndStack
    let traffic: SubmissionTraffic

    struct Findings: CustomStringConvertible {
        var accepted = 0
        var failed = 0
        var retriedAndAccepted = 0
        /// 5xx, then 403 on retry: the TAN was lost. Never expected.
        var lostTANs = 0
        /// 5xx, but the keys are published: the TAN was spent for them, the answer did not say so.
        var storedDespiteFailure = 0
        /// 5xx after verification had spent the TAN, then accepted on retry as a repeat of that redemption.
        var spentAndRecovered = 0
        var statuses: [Int: Int] = [:]
        var errorCodes: [String: Int] = [:]

        var description: String {
            "accepted \(accepted), failed \(failed) (codes \(errorCodes)), retried and accepted \(retriedAndAccepted), "
                + "of them after their TAN was spent \(spentAndRecovered), lost TANs \(lostTANs), "
                + "stored despite a failure answer \(storedDespiteFailure); statuses \(statuses)"
        }
    }

    /// Every answer was 200 or 5xx, in time.
    func expectOnlySuccessOrServerError(_ attempts: [SubmissionAttempt]) {
        for attempt in attempts {
            #expect(attempt.clientError == nil, "no answer within \(SubmissionTraffic.answerTimeout) s: \(attempt.clientError ?? "")\n\(stack.logs)")
            if let status = attempt.status {
                #expect(status == 200 || (500...599).contains(status), "answered \(status) \(attempt.errorCode ?? "")")
            }
        }
    }

    /// Sends fresh submissions (one TAN each from `probes`) until one is accepted; fails when none is within `deadline`.
    /// No service is restarted meanwhile: they must recover by themselves.
    func expectRecovery(probes: [String], deadline: Duration = .seconds(40)) async throws {
        let end = ContinuousClock.now + deadline
        var remaining = probes
        var last = "no attempt"
        while ContinuousClock.now < end, let tan = remaining.popLast() {
            let answer = await traffic.send(try SubmissionTraffic.attempt(tan: tan))
            if answer.status == 200 {
                try #require(try await storedKeyData().isSuperset(of: answer.keyData), "a probe answered 200 without its keys stored")
                return
            }
            last = "\(answer.status.map(String.init) ?? "no answer") \(answer.errorCode ?? answer.clientError ?? "")"
            try await Task.sleep(for: .milliseconds(500))
        }
        Issue.record("the services did not accept a submission again within \(deadline) (last answer: \(last))\n\(stack.logs)")
    }

    /// Checks the databases against the answers, retries every failed submission with its own TAN, and returns
    /// what happened.
    /// `recoveryDeadline`: how long the recovery rounds (every `RECOVERY_INTERVAL`) have to publish what was answered
    /// 200 before a missing key counts.
    func audit(_ attempts: [SubmissionAttempt], retryDeadline: Duration = .seconds(40), recoveryDeadline: Duration = .seconds(20)) async throws -> Findings {
        var findings = Findings()
        for attempt in attempts {
            findings.statuses[attempt.status ?? 0, default: 0] += 1
        }
        // An upload answered 200 whose publishing step died with the server is published by the next recovery round
        // (`PendingUploadRecovery`, docs/reliability.md), not at once: give the rounds time before judging.
        let answered = Set(attempts.filter { $0.status == 200 }.flatMap(\.keyData))
        var stored = try await storedKeyData()
        let settled = ContinuousClock.now + recoveryDeadline
        while !answered.isSubset(of: stored), ContinuousClock.now < settled {
            try await Task.sleep(for: .milliseconds(500))
            stored = try await storedKeyData()
        }
        for attempt in attempts where attempt.status == 200 {
            findings.accepted += 1
            let missing = attempt.keyData.filter { !stored.contains($0) }
            #expect(missing.isEmpty, "answered 200 but \(missing.count) of its \(attempt.keyData.count) keys are not stored")
        }
        for attempt in attempts where attempt.isServerError {
            findings.failed += 1
            findings.errorCodes[attempt.errorCode ?? "?", default: 0] += 1
            let present = attempt.keyData.filter(stored.contains).count
            #expect(present == 0 || present == attempt.keyData.count, "a failed submission stored \(present) of \(attempt.keyData.count) keys")
            if present == attempt.keyData.count { findings.storedDespiteFailure += 1 }
        }
        let redeemedBeforeRetries = try await redeemedTANHashes()
        // The phone retries a failed upload with the same TAN and the same keys.
        let end = ContinuousClock.now + retryDeadline
        for attempt in attempts where attempt.isServerError {
            var retry = await traffic.send(attempt)
            while retry.isServerError, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(500))
                retry = await traffic.send(attempt)
            }
            switch retry.status {
            case 200:
                findings.retriedAndAccepted += 1
                if redeemedBeforeRetries.contains(SecretHash.sha256Hex(attempt.tan)) { findings.spentAndRecovered += 1 }
            case 403:
                findings.lostTANs += 1
                Issue.record("the retry of a failed submission was refused: its TAN was lost (\(retry.errorCode ?? ""))")
            default:
                Issue.record("a retry after recovery was answered \(retry.status.map(String.init) ?? "not at all") \(retry.errorCode ?? retry.clientError ?? "")")
            }
        }
        // Every submission that was finally accepted, at first or on retry, has its keys.
        let finallyStored = try await storedKeyData()
        for attempt in attempts where attempt.status == 200 {
            #expect(attempt.keyData.allSatisfy(finallyStored.contains), "keys of an accepted submission disappeared")
        }
        return findings
    }

    /// The key bytes the submission service will publish (pending keys are not among them).
    func storedKeyData() async throws -> Set<Data> {
        try await query(stack.databases["submission"]!) { connection in
            Set(try await connection.raw("SELECT key_data FROM diagnosis_keys WHERE pending_reservation IS NULL").all().map {
                try $0.decode(column: "key_data", as: Data.self)
            })
        }
    }

    /// How many keys wait for their upload's TAN to be spent.
    func pendingKeys() async throws -> Int {
        try await query(stack.databases["submission"]!) { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM diagnosis_keys WHERE pending_reservation IS NOT NULL").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// Waits until no key is pending: the recovery job has settled every upload a fault interrupted.
    func expectNothingPending(within deadline: Duration) async throws {
        let end = ContinuousClock.now + deadline
        var pending = try await pendingKeys()
        while pending > 0, ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(500))
            pending = try await pendingKeys()
        }
        #expect(pending == 0, "\(pending) keys still pending after \(deadline): the recovery job did not settle them\n\(stack.logs)")
    }

    /// For a fault that interrupts uploads at any point: once the recovery job has settled every upload, each failed
    /// one either has its keys published (its TAN spent for them) or its phone's next upload with the same TAN and
    /// other keys (a day later, say) is accepted, after the lease if need be. Returns the findings; `lostTANs` must be 0.
    func auditWithChangedKeys(_ attempts: [SubmissionAttempt], settleWithin: Duration, retryDeadline: Duration) async throws -> Findings {
        var findings = Findings()
        for attempt in attempts {
            findings.statuses[attempt.status ?? 0, default: 0] += 1
        }
        try await expectNothingPending(within: settleWithin)
        let published = try await storedKeyData()
        for attempt in attempts where attempt.status == 200 {
            findings.accepted += 1
            #expect(attempt.keyData.allSatisfy(published.contains), "answered 200 but its keys are not published")
        }
        let end = ContinuousClock.now + retryDeadline
        for attempt in attempts where attempt.status != 200 {
            findings.failed += 1
            findings.errorCodes[attempt.errorCode ?? attempt.clientError.map { _ in "no answer" } ?? "?", default: 0] += 1
            let present = attempt.keyData.filter(published.contains).count
            #expect(present == 0 || present == attempt.keyData.count, "a failed submission has \(present) of \(attempt.keyData.count) keys published")
            if present == attempt.keyData.count {
                findings.storedDespiteFailure += 1
                continue
            }
            let changed = try SubmissionTraffic.attempt(tan: attempt.tan)
            var retry = await traffic.send(changed)
            while retry.status.map({ (500...599).contains($0) }) ?? true, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(500))
                retry = await traffic.send(changed)
            }
            switch retry.status {
            case 200:
                findings.retriedAndAccepted += 1
            case 403:
                findings.lostTANs += 1
                Issue.record("a failed upload's keys were not published, and its TAN refused other keys: the TAN was lost")
            default:
                Issue.record("a retry with other keys was answered \(retry.status.map(String.init) ?? "not at all") \(retry.errorCode ?? retry.clientError ?? "")")
            }
        }
        return findings
    }

    /// The hashes of the TANs verification has spent.
    func redeemedTANHashes() async throws -> Set<String> {
        try await query(stack.databases["verification"]!) { connection in
            Set(try await connection.raw("SELECT tan_hash FROM tans WHERE redeemed_at IS NOT NULL").all().map { try $0.decode(column: "tan_hash", as: String.self) })
        }
    }

    private func query<T: Sendable>(_ url: DatabaseURL, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let database = try await Database.connect(url, poolSize: 1, logger: TestLogger.quiet)
        do {
            let result = try await database.withConnection(body)
            await database.shutdown()
            return result
        } catch {
            await database.shutdown()
            throw error
        }
    }
}
