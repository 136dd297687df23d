import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission

/// `TANVerifier` against verification's stand-in over real HTTP: the TANs of concurrent submissions share
/// requests, each TAN is spent once, and a verification service without the batch path is asked TAN by TAN.
@Suite struct TANVerifierTests {
    /// Runs `body` with a verifier pointed at a running stand-in.
    static func withVerifier(
        _ standIn: VerificationStandIn, batchPathRetry: Duration = .seconds(60),
        _ body: (TANVerifier) async throws -> Void
    ) async throws {
        try await TestServices.withRunning([standIn.bundle()]) { running in
            let port = await running.bundle(VerificationStandIn.name).port("internal")
            let http = DownstreamHTTPClient(connectTimeout: .seconds(1))
            let verifier = TANVerifier(
                baseURL: URL(string: "http://127.0.0.1:\(port)")!, policy: DownstreamPolicy(timeout: .seconds(5)),
                serviceToken: TestServiceTokens.submission, http: http, logger: TestLogger.quiet, batchPathRetry: batchPathRetry
            )
            do {
                try await body(verifier)
            } catch {
                await http.shutdown()
                throw error
            }
            await http.shutdown()
        }
    }

    /// What `spend` answered: nil when the TAN was spent, else the error's code. Each spend is its own submission,
    /// with a redemption key of its own unless `key` is given.
    static func outcome(of tan: String, key: String? = nil, at verifier: TANVerifier) async -> String? {
        do {
            try await verifier.spend(TANRedemption(tan: tan, key: key ?? Codes.redemptionKey(using: SystemRandomSource())))
            return nil
        } catch {
            return error.code
        }
    }

    @Test
    func concurrentSpendsShareRequestsAndEachTANIsSpentOnce() async throws {
        let standIn = VerificationStandIn()
        // Every answer takes 100 ms, so that the spends queue behind the two requests out.
        standIn.stall(for: .milliseconds(100))
        let plain = (0..<30).map { _ in standIn.issue() }
        let event = (0..<5).map { _ in standIn.issue(teleTANType: "EVENT") }
        let test = (0..<5).map { _ in standIn.issue(teleTANType: "TEST") }
        let unknown = (0..<10).map { _ in Codes.uuidV4(using: SystemRandomSource()) }
        try await Self.withVerifier(standIn) { verifier in
            // Each issued TAN asked for twice, all at once.
            let asked = (plain + event + test) + (plain + event + test) + unknown
            let outcomes = await withTaskGroup(of: (String, String?).self) { group in
                for tan in asked {
                    group.addTask { (tan, await Self.outcome(of: tan, at: verifier)) }
                }
                return await group.reduce(into: [String: [String?]]()) { $0[$1.0, default: []].append($1.1) }
            }
            for tan in plain + test {
                #expect(outcomes[tan]?.sorted { ($0 ?? "") < ($1 ?? "") } == [nil, "invalid_tan"])
            }
            for tan in event {
                #expect(outcomes[tan]?.sorted { ($0 ?? "") < ($1 ?? "") } == ["event_tan", "invalid_tan"])
            }
            for tan in unknown {
                #expect(outcomes[tan] == ["invalid_tan"])
            }
        }
        #expect(standIn.batchCallCount == standIn.callCount)
        // 90 spends: two requests go out alone, the rest queue and go in one or two more.
        #expect(standIn.callCount <= 6)
    }

    @Test
    func aVerificationServiceWithoutTheBatchPathIsAskedTANByTAN() async throws {
        let standIn = VerificationStandIn(batchPath: false)
        let tans = (0..<20).map { _ in standIn.issue() }
        try await Self.withVerifier(standIn) { verifier in
            let outcomes = await withTaskGroup(of: String?.self) { group in
                for tan in tans + tans.prefix(5) {
                    group.addTask { await Self.outcome(of: tan, at: verifier) }
                }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 20)
            #expect(outcomes.filter { $0 == "invalid_tan" }.count == 5)
        }
        #expect(standIn.callCount == 25)
        // Asked once per request that was out before the first 404 came back, then never again.
        #expect((1...2).contains(standIn.batchCallCount))
    }

    @Test
    func requestsCarryCompactJSON() async throws {
        let standIn = VerificationStandIn()
        let tan = standIn.issue()
        let key = String(repeating: "0123456789abcdef", count: 2)
        try await Self.withVerifier(standIn) { verifier in
            #expect(await Self.outcome(of: tan, key: key, at: verifier) == nil)
        }
        // One line without spaces; the order of the two members is the encoder's.
        let body = try #require(standIn.requestBodies.first)
        #expect(standIn.requestBodies.count == 1)
        #expect(!body.contains(" ") && !body.contains("\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: [String]])
        #expect(json == ["tans": [tan], "redemptionKeys": [key]])
    }

    @Test
    func theBatchPathIsTriedAgainAfterTheRetryInterval() async throws {
        let standIn = VerificationStandIn(batchPath: false)
        try await Self.withVerifier(standIn, batchPathRetry: .zero) { verifier in
            for _ in 0..<3 {
                let outcome = await Self.outcome(of: standIn.issue(), at: verifier)
                #expect(outcome == nil)
            }
        }
        #expect(standIn.batchCallCount == 3)
        #expect(standIn.callCount == 3)
    }

    @Test
    func aFailedBatchFailsEverySpendInIt() async throws {
        let standIn = VerificationStandIn()
        standIn.failNext([.internalServerError])
        let tan = standIn.issue()
        try await Self.withVerifier(standIn) { verifier in
            #expect(await Self.outcome(of: tan, at: verifier) == "dependency_unavailable")
            // The failed request spent nothing: the TAN is still good.
            #expect(await Self.outcome(of: tan, at: verifier) == nil)
        }
    }
}
