import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
import SQLKit
@testable import SubmissionDomain
import SwiftProtobuf

@testable import Submission
@testable import SubmissionCore

/// A running submission service on a fresh database, with a verification stand-in, for one test.
struct SubmissionHarness: Sendable {
    let client: TestHTTPClient
    let management: TestHTTPClient
    let verification: VerificationStandIn
    /// Where the stand-in listens (verification's internal listener).
    let verificationURL: URL
    let database: Database
    let store: DiagnosisKeyStore
    let clock: ManualClock
    let kind: TestDatabase
    /// The names of the service's periodic jobs, the enabled families' own among them.
    let jobNames: [String]

    static let path = "/version/v1/diagnosis-keys"

    /// Starts verification's stand-in and the submission service (settings from `environment`, on top of the
    /// defaults; `VERIFICATION_URL` defaults to the stand-in) and runs `body` against them. The harness clock reads
    /// `start` from the first instant: the service's jobs run as it starts, so a clock moved back only afterwards
    /// could let a late first retention round, reading the earlier time, delete what the test has just stored.
    static func run(
        _ kind: TestDatabase,
        start: Date? = nil,
        environment: [String: String] = [:],
        latency: LatencyMatcher? = nil,
        tally: HourlyTally? = nil,
        _ body: (SubmissionHarness) async throws -> Void
    ) async throws {
        let verification = VerificationStandIn()
        try await kind.withFreshDatabaseURL { url in
            try await TestServices.withRunning([verification.bundle()]) { running in
                let port = await running.bundle(VerificationStandIn.name).port("internal")
                // The service's own recovery job would settle, on its own schedule, keys a test stores pending on
                // purpose (or, for an instant, on the way to published), and the stand-in, not knowing their
                // reservation, would have them deleted. Its rounds come a day apart here; tests of recovery run it
                // themselves (`PendingUploadRecovery.standalone`), or set the variable.
                var settings = [
                    "VERIFICATION_URL": "http://127.0.0.1:\(port)", "PORT": "0", "BIND_HOST": "127.0.0.1", "DISTRIBUTION_INTERVAL": "0",
                    "RECOVERY_INTERVAL": "24h",
                ]
                settings.merge(environment) { $1 }
                var configuration = try SubmissionConfiguration(TestServices.settings(settings))
                configuration.common.databaseURL = url
                let clock = start.map { ManualClock($0) } ?? ManualClock()
                verification.useCodeClock(clock)
                let serviceEnvironment = TestServices.environment(clock: clock)
                let database = try await Database.open(configuration.common, migrator: SubmissionMigrations.migrator, environment: serviceEnvironment)
                let bundle = try await SubmissionService.makeBundle(
                    configuration, database: database, environment: serviceEnvironment, latency: latency, tally: tally)
                try await TestServices.withRunning([bundle]) { running in
                    let harness = SubmissionHarness(
                        client: await TestServices.client(running, SubmissionService.name, SubmissionService.listener),
                        management: await TestServices.management(running, SubmissionService.name),
                        verification: verification,
                        verificationURL: URL(string: "http://127.0.0.1:\(port)")!,
                        database: database,
                        store: DiagnosisKeyStore(database: database),
                        clock: clock,
                        kind: kind,
                        jobNames: bundle.jobs.compactMap { ($0 as? PeriodicJob)?.name }
                    )
                    try await body(harness)
                }
            }
        }
    }

    /// POSTs a payload as the apps do.
    func submit(_ body: [UInt8], tan: String?, fake: String? = "0", contentType: String = "application/x-protobuf") async throws -> TestResponse {
        var headers: [(String, String)] = []
        if let fake { headers.append(("cwa-fake", fake)) }
        if let tan { headers.append(("cwa-authorization", tan)) }
        return try await client.postRaw(Self.path, body, headers: headers, contentType: contentType)
    }

    func storedCount() async throws -> Int { try await store.count() }

    /// Every row of `diagnosis_keys`, pending or publishable, read with SQL of its own rather than through the store
    /// under test: the columns an upload's keys are compared by.
    func storedRows() async throws -> [SubmissionRulesOracle.StoredKey] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT key_data, rolling_start_interval_number, rolling_period, transmission_risk_level FROM diagnosis_keys
                """).all().map { row in
                SubmissionRulesOracle.StoredKey(
                    keyData: try row.decode(column: "key_data", as: Data.self),
                    rollingStart: try row.decode(column: "rolling_start_interval_number", as: Int32.self),
                    rollingPeriod: try row.decode(column: "rolling_period", as: Int32.self),
                    transmissionRisk: try row.decode(column: "transmission_risk_level", as: Int32.self)
                )
            }
        }
    }

    /// The recovery job as the service runs it (a minute's wait by default), against the stand-in, on the harness clock.
    func recovery(after: Duration = .seconds(60)) -> PendingUploadRecovery {
        PendingUploadRecovery.standalone(store: store, verificationURL: verificationURL, after: after, clock: clock)
    }

    /// The rolling start interval of today (UTC midnight) on the harness clock.
    var today: Int32 { Payloads.today(clock.now()) }
}

/// Builders of upload bodies.
enum Payloads {
    static func today(_ now: Date) -> Int32 {
        let interval = Int32(now.epochSeconds / 600)
        return interval - interval % 144
    }

    /// A key whose data is `byte` repeated, starting `daysAgo` days before today.
    static func key(
        _ byte: UInt8, today: Int32, daysAgo: Int32 = 1, risk: Int32? = 5, daysSinceOnset: Int32? = nil, period: Int32? = nil
    ) -> TemporaryExposureKey {
        var key = TemporaryExposureKey()
        key.keyData = Data(repeating: byte, count: 16)
        key.rollingStartIntervalNumber = today - daysAgo * 144
        if let risk { key.transmissionRiskLevel = risk }
        if let daysSinceOnset { key.daysSinceOnsetOfSymptoms = daysSinceOnset }
        if let period { key.rollingPeriod = period }
        return key
    }

    static func payload(_ keys: [TemporaryExposureKey], _ configure: (inout SubmissionPayload) -> Void = { _ in }) -> SubmissionPayload {
        var payload = SubmissionPayload()
        payload.keys = keys
        configure(&payload)
        return payload
    }

    static func bytes(_ keys: [TemporaryExposureKey], _ configure: (inout SubmissionPayload) -> Void = { _ in }) -> [UInt8] {
        try! payload(keys, configure).serializedBytes()
    }
}

extension DiagnosisKeyStore {
    /// Stores keys as an upload whose TAN was spent at once does: pending under a fresh reservation, then published.
    @discardableResult
    func storePublished(_ keys: [DiagnosisKey], padding: [DiagnosisKey], submittedAt now: Date = DiagnosisKeyStoreTests.now) async throws -> StoreOutcome {
        let reservation = Codes.redemptionKey(using: SystemRandomSource())
        let outcome = try await storePending(keys, padding: padding, reservation: reservation, submittedAt: now)
        try await publish(reservation: reservation)
        return outcome
    }
}

extension PendingUploadRecovery {
    /// A recovery job with its own client to verification (the process's is inside the running service), as a second
    /// replica would run it.
    static func standalone(store: DiagnosisKeyStore, verificationURL: URL, after: Duration, clock: any WallClock) -> PendingUploadRecovery {
        let reservations = TANReservations(
            baseURL: verificationURL, policy: DownstreamPolicy(), serviceToken: TestServiceTokens.submission,
            http: .forTests, logger: TestLogger.quiet
        )
        return PendingUploadRecovery(store: store, reservations: reservations, after: after, clock: clock, logger: TestLogger.quiet)
    }
}

extension DownstreamHTTPClient {
    /// One client for the whole test process, as `HTTPClient.shared` is; never shut down. A generous connect timeout:
    /// under a parallel run a listener's backlog may overflow for a moment, and a dropped SYN is sent again after 1 s.
    static let forTests = DownstreamHTTPClient(connectTimeout: .seconds(30))
}
