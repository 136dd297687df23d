import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

/// What the databases say about a run of `SubmissionTraffic` after a fault, checked against what the phones were
/// told. The hard rule: a submission answered 200 has every one of its keys stored. A submission answered 5xx left
/// its TAN usable (the retry succeeds), or falls in the window the design cannot close: verification spent the TAN
/// and the submission still failed. Such a TAN is named here, never hidden: its retry is 403, verification shows
/// the TAN redeemed, and the submission's keys are either all stored (the commit reached the database but its
/// answer did not reach the service) or none.
struct SubmissionAudit {
    let stack: EndToEndStack
    let traffic: SubmissionTraffic

    struct Findings: CustomStringConvertible {
        var accepted = 0
        var failed = 0
        var retriedAndAccepted = 0
        /// 5xx, then 403 on retry: the TAN was spent by verification, the keys were not stored.
        var lostTANs = 0
        /// 5xx, then 403 on retry, but the keys are stored: the commit succeeded, its acknowledgement was lost.
        var storedDespiteFailure = 0
        var statuses: [Int: Int] = [:]
        var errorCodes: [String: Int] = [:]

        var description: String {
            "accepted \(accepted), failed \(failed) (codes \(errorCodes)), retried and accepted \(retriedAndAccepted), "
                + "lost TANs \(lostTANs), stored despite a failure answer \(storedDespiteFailure); statuses \(statuses)"
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
    func audit(_ attempts: [SubmissionAttempt], retryDeadline: Duration = .seconds(40)) async throws -> Findings {
        var findings = Findings()
        for attempt in attempts {
            findings.statuses[attempt.status ?? 0, default: 0] += 1
        }
        let stored = try await storedKeyData()
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
        }
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
            case 403:
                // Only the narrow window may refuse a retry: verification spent the TAN during the failed attempt.
                let redeemed = try await redeemedTANHashes()
                #expect(redeemed.contains(SecretHash.sha256Hex(attempt.tan)), "a retry was refused although verification never spent the TAN")
                let present = attempt.keyData.filter(stored.contains).count
                if present == attempt.keyData.count { findings.storedDespiteFailure += 1 } else { findings.lostTANs += 1 }
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

    /// The key bytes in the submission service's database.
    func storedKeyData() async throws -> Set<Data> {
        try await query(stack.databases["submission"]!) { connection in
            Set(try await connection.raw("SELECT key_data FROM diagnosis_keys").all().map { try $0.decode(column: "key_data", as: Data.self) })
        }
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
