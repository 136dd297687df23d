import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// The submission process killed (SIGKILL) at each point of an upload's two phases, chosen exactly: a proxy between
/// submission and verification holds the reservation's answer (reserved, nothing stored), the confirmation before
/// verification sees it (keys stored as pending, the TAN reserved), or the confirmation's answer (the TAN spent,
/// the keys pending). The service restarts on the same data; its recovery job settles what the dead process left,
/// and either the keys are published exactly once with the TAN spent, or the TAN takes other keys after the lease.
@Suite(.serialized) struct SubmissionKillPointTests {
    enum KillPoint: String, CaseIterable, Sendable {
        case afterReserving, afterStoring, afterConfirming

        var hold: (path: String, AnswerDroppingProxy.Hold) {
            switch self {
            case .afterReserving: ("/version/v1/tans/reserve", .afterForwarding)
            case .afterStoring: ("/version/v1/tans/confirm", .beforeForwarding)
            case .afterConfirming: ("/version/v1/tans/confirm", .afterForwarding)
            }
        }
    }

    static let verificationPaths = ["/version/v1/tans/reserve", "/version/v1/tans/confirm", "/version/v1/tans/release"]

    @Test(arguments: TestDatabase.all, KillPoint.allCases)
    func anUploadKilledAtEachPointIsPublishedOnceOrLeavesItsTANUsable(kind: TestDatabase, point: KillPoint) async throws {
        let verificationInternal = ServiceProcess.freePort()
        let (heldPath, hold) = point.hold
        let proxy = AnswerDroppingProxy(
            paths: [], passing: Self.verificationPaths.filter { $0 != heldPath }, dropping: 0, holding: [heldPath: hold]
        )
        let proxies = await RunningServices.start([proxy.bundle(upstreamPort: verificationInternal)], logger: TestLogger.quiet)
        let proxyURL = "http://127.0.0.1:\(await proxies.bundle(proxy.name).port(proxy.listener))"
        let overrides = [
            "verification-service": ["INTERNAL_PORT": "\(verificationInternal)", "TAN_RESERVATION_LEASE": "10s"],
            "submission-service": ["VERIFICATION_URL": proxyURL, "RECOVERY_INTERVAL": "1s"],
            "portal-service": ["VERIFICATION_URL": "http://127.0.0.1:\(verificationInternal)"],
        ]
        do {
            try await EndToEndStack.run(on: kind, overrides: overrides) { stack in
                try await Self.killAndRecover(stack, at: point, proxy: proxy)
            }
        } catch {
            proxy.releaseHeld()
            await proxies.stop()
            throw error
        }
        proxy.releaseHeld()
        await proxies.stop()
    }

    static func killAndRecover(_ stack: EndToEndStack, at point: KillPoint, proxy: AnswerDroppingProxy) async throws {
        let traffic = SubmissionTraffic(stack: stack)
        let audit = SubmissionAudit(stack: stack, traffic: traffic)
        let tan = try #require(try await traffic.mintTANs(1).first)
        let upload = try SubmissionTraffic.attempt(tan: tan)
        let sending = Task { await traffic.send(upload) }
        try await proxy.waitUntilHeld()
        stack.kill("submission-service")
        let answer = await sending.value
        #expect(answer.status == nil, "the killed upload was answered \(answer.status ?? 0)")
        proxy.releaseHeld()
        try await stack.start("submission-service")

        try await audit.expectNothingPending(within: .seconds(40))
        let published = try await audit.storedKeyData()
        let changed = try SubmissionTraffic.attempt(tan: tan)
        if point == .afterConfirming {
            // The TAN was spent for these keys: the recovery job published them, and only the same upload is accepted.
            #expect(upload.keyData.allSatisfy(published.contains), "\(point): the keys of a spent TAN were not published\n\(stack.logs)")
            #expect(await traffic.send(changed).status == 403)
            #expect(await traffic.send(upload).status == 200)
        } else {
            // Nothing was spent: nothing of the dead upload is published, and the TAN takes other keys once the lease
            // has run out (503 `tan_in_use` until then).
            #expect(!upload.keyData.contains(where: published.contains), "\(point): keys published without their TAN spent")
            var retry = await traffic.send(changed)
            let end = ContinuousClock.now + .seconds(40)
            while retry.isServerError, ContinuousClock.now < end {
                #expect(retry.status == 503 || retry.status == 500, "\(retry.status ?? 0) \(retry.errorCode ?? "")")
                try await Task.sleep(for: .milliseconds(500))
                retry = await traffic.send(changed)
            }
            #expect(retry.status == 200, "\(point): other keys with the TAN were answered \(retry.status ?? 0) \(retry.errorCode ?? "")")
        }
        let final = try await audit.storedKeyData()
        let accepted = point == .afterConfirming ? upload : changed
        #expect(accepted.keyData.allSatisfy(final.contains))
        #expect(try await audit.pendingKeys() == 0)
    }
}
