import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore

/// The endpoint over real HTTP, on SQLite and PostgreSQL, with TANs verified by the stand-in over HTTP.
@Suite struct SubmissionAPITests {
    @Test(arguments: TestDatabase.all)
    func acceptedKeysAreStoredAndTheTANIsSpent(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let tan = harness.verification.issue()
            let body = Payloads.bytes([
                Payloads.key(1, today: harness.today, daysAgo: 1, risk: 8, daysSinceOnset: nil),
                Payloads.key(2, today: harness.today, daysAgo: 2, risk: nil, daysSinceOnset: -3),
                Payloads.key(3, today: harness.today, daysAgo: 3, risk: 2, daysSinceOnset: 9),
            ]) { $0.visitedCountries = ["FR"]; $0.consentToFederation = true }
            let response = try await harness.submit(body, tan: tan)
            Covers.status(200, of: "POST /version/v1/diagnosis-keys", response)
            #expect(response.body.isEmpty)
            // Two phases: the TAN reserved, then spent once the keys were stored.
            #expect(harness.verification.callCount("reserve") == 1 && harness.verification.callCount("confirm") == 1)
            #expect(harness.verification.isSpent(tan))
            let stored = try await harness.store.all()
            #expect(stored.map(\.key.transmissionRiskLevel) == [8, 6, 2])
            #expect(stored.map(\.key.daysSinceOnsetOfSymptoms) == [0, -3, 9])
            #expect(stored.allSatisfy { $0.key.visitedCountries == ["FR"] && $0.key.consentToFederation && $0.key.originCountry == "DE" })
            #expect(stored.allSatisfy { $0.submissionHour == harness.clock.now().epochSeconds / 3600 })

            // The TAN is spent: another upload with it is refused and changes nothing.
            let other = try await harness.submit(Payloads.bytes([Payloads.key(4, today: harness.today)]), tan: tan)
            Covers.status(403, of: "POST /version/v1/diagnosis-keys", other, error: "invalid_tan")
            // The same upload again is the same use of the TAN (an app whose answer was lost): 200, nothing twice.
            #expect(try await harness.submit(body, tan: tan).status == 200)
            #expect(try await harness.storedCount() == 3)
            #expect(try await harness.store.pendingCount() == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func refusedTANsStoreNothing(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = Payloads.bytes([Payloads.key(1, today: harness.today)])
            let unknown = try await harness.submit(body, tan: Codes.uuidV4(using: SystemRandomSource()))
            #expect(unknown.status == 403)
            #expect(unknown.json["error"] as? String == "invalid_tan")
            #expect(unknown.header("content-type")?.hasPrefix("application/json") == true)

            let eventTAN = harness.verification.issue(teleTANType: "EVENT")
            let event = try await harness.submit(body, tan: eventTAN)
            #expect(event.status == 403)
            #expect(event.json["error"] as? String == "event_tan")
            // Refused before anything was stored, and given back unspent: an event TAN stays good for a host warning. (The
            // unknown TAN's upload released a random key, as a foreign TAN's releases its reservation: one timing.)
            #expect(harness.verification.callCount("reserve") == 2 && harness.verification.callCount("release") == 2)
            #expect(harness.verification.callCount("confirm") == 0)
            #expect(!harness.verification.isSpent(eventTAN) && !harness.verification.isReserved(eventTAN))
            #expect(try await harness.storedCount() == 0)
            #expect(try await harness.store.pendingCount() == 0)

            // A TAN from a TEST teleTAN is an ordinary TAN.
            let test = try await harness.submit(body, tan: harness.verification.issue(teleTANType: "TEST"))
            #expect(test.status == 200)
            #expect(try await harness.storedCount() == 1)
        }
    }

    /// Health and metrics answer on the management listener: ready while the database and verification are, not
    /// ready when verification is not. The app listener answers only liveness.
    @Test(arguments: TestDatabase.all)
    func healthAndMetricsAnswer(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            #expect(try await harness.client.get("/health/live").status == 200)
            #expect(try await harness.client.get("/health/ready").status == 404)
            #expect(try await harness.client.get("/metrics").status == 404)
            let ready = try await harness.management.get("/health/ready")
            #expect(ready.status == 200)
            #expect(ready.json["checks"] as? [String: String] == ["database": "up", "verification": "up"])
            let metrics = try await harness.management.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("http_request_duration_seconds"))
        }
        try await SubmissionHarness.run(kind, environment: ["VERIFICATION_URL": "http://127.0.0.1:\(ServiceProcess.freePort())"]) { harness in
            // Verification refuses the connection: "down" (HTTPTests.readinessTimesOutAHangingDependency shows that a
            // dependency that hangs is not waited for either).
            let ready = try await harness.management.get("/health/ready")
            #expect(ready.status == 503)
            #expect(ready.json["checks"] as? [String: String] == ["database": "up", "verification": "down"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func headersAreChecked(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = Payloads.bytes([Payloads.key(1, today: harness.today)])
            let tan = harness.verification.issue()
            for fake in [nil, "", "2", "true", "01"] as [String?] {
                let response = try await harness.submit(body, tan: tan, fake: fake)
                #expect(response.status == 400, "cwa-fake \(String(describing: fake))")
                #expect(response.json["error"] != nil)
            }
            let missingTAN = try await harness.submit(body, tan: nil)
            Covers.status(400, of: "POST /version/v1/diagnosis-keys", missingTAN)
            for bad in ["TAN " + tan, "not-a-uuid", String(tan.dropLast(2))] {
                let response = try await harness.submit(body, tan: bad)
                #expect(response.status == 403, "cwa-authorization \(bad)")
                #expect(response.json["error"] as? String == "invalid_tan")
            }
            let wrongType = try await harness.submit(body, tan: tan, contentType: "application/json")
            Covers.status(415, of: "POST /version/v1/diagnosis-keys", wrongType, error: "unsupported_media_type")
            // None of these reached verification, so the TAN still works; upper case is the same TAN.
            #expect(harness.verification.callCount == 0)
            #expect(try await harness.submit(body, tan: tan.uppercased()).status == 200)
            // A body without any Content-Type is read as the one type the path takes (the OpenAPI runtime's rule).
            let untyped = try await harness.client.request(
                .POST, SubmissionHarness.path, headers: [("cwa-fake", "0"), ("cwa-authorization", harness.verification.issue())],
                body: Payloads.bytes([Payloads.key(2, today: harness.today)])
            )
            #expect(untyped.status == 200)
        }
    }

    @Test(arguments: TestDatabase.all)
    func invalidPayloadsAre400AndSpendNoTAN(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let today = harness.today
            func key(_ configure: (inout TemporaryExposureKey) -> Void = { _ in }) -> TemporaryExposureKey {
                var key = Payloads.key(1, today: today)
                configure(&key)
                return key
            }
            let cases: [(String, [UInt8])] = [
                ("unparsable_payload", [0x0A, 0xFF, 0xFF, 0xFF, 0x01]),
                ("invalid_key_count", Payloads.bytes([])),
                ("invalid_key_count", Payloads.bytes((1...15).map { Payloads.key(UInt8($0), today: today, daysAgo: Int32($0 % 14)) })),
                ("invalid_key_data", Payloads.bytes([key { $0.keyData = Data(count: 15) }])),
                ("invalid_key_data", Payloads.bytes([key { $0.keyData = Data(count: 17) }])),
                ("invalid_rolling_start_interval", Payloads.bytes([key { $0.rollingStartIntervalNumber += 6 }])),
                ("invalid_rolling_period", Payloads.bytes([key { $0.rollingPeriod = 0 }])),
                ("invalid_rolling_period", Payloads.bytes([key { $0.rollingPeriod = 145 }])),
                ("invalid_transmission_risk", Payloads.bytes([key { $0.transmissionRiskLevel = 0 }])),
                ("invalid_transmission_risk", Payloads.bytes([key { $0.transmissionRiskLevel = 9 }])),
                ("invalid_transmission_risk", Payloads.bytes([key { $0.clearTransmissionRiskLevel(); $0.daysSinceOnsetOfSymptoms = -15 }])),
                ("invalid_transmission_risk", Payloads.bytes([key { $0.clearTransmissionRiskLevel(); $0.daysSinceOnsetOfSymptoms = 4001 }])),
                ("invalid_transmission_risk", Payloads.bytes([key { $0.clearTransmissionRiskLevel() }])),
                ("invalid_origin", Payloads.bytes([key()]) { $0.origin = "FR" }),
                ("invalid_visited_countries", Payloads.bytes([key()]) { $0.visitedCountries = ["FR", "ZZ"] }),
                ("invalid_submission_type", Payloads.bytes([key()]) { $0.submissionType = .hostWarning }),
                ("invalid_submission_type", Payloads.bytes([key()]) { $0.submissionType = .srsSelfTest }),
                ("invalid_submission_type", Payloads.bytes([key()]) + [0x38, 0x0A]),
                // A negative type (a ten-byte varint), and the attack that got an unknown type stored as PCR: an unknown
                // group before it stopped the reader of the unknown fields, which then did not see field 7.
                ("invalid_submission_type", Payloads.bytes([key()]) + [0x38] + [UInt8](repeating: 0xFF, count: 9) + [0x01]),
                ("invalid_submission_type", Payloads.bytes([key()]) + [0xA3, 0x01, 0x08, 0x01, 0xA4, 0x01, 0x38, 0x2A]),
            ]
            let tan = harness.verification.issue()
            for (code, body) in cases {
                let response = try await harness.submit(body, tan: tan)
                #expect(response.status == 400, "\(code)")
                #expect(response.json["error"] as? String == code)
                #expect((response.json["message"] as? String)?.isEmpty == false)
            }
            #expect(harness.verification.callCount == 0)
            #expect(try await harness.storedCount() == 0)
            #expect(try await harness.submit(Payloads.bytes([key()]), tan: tan).status == 200)
        }
    }

    @Test(arguments: TestDatabase.all)
    func unusableKeysAreDroppedAndTheRestStored(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            var zero = Payloads.key(1, today: harness.today)
            zero.rollingStartIntervalNumber = 0
            var negative = Payloads.key(2, today: harness.today)
            negative.rollingStartIntervalNumber = -144
            let future = Payloads.key(3, today: harness.today, daysAgo: -1)
            let tooOld = Payloads.key(4, today: harness.today, daysAgo: 15)
            let valid = Payloads.key(5, today: harness.today, daysAgo: 0)
            let response = try await harness.submit(Payloads.bytes([zero, negative, future, tooOld, valid]), tan: harness.verification.issue())
            #expect(response.status == 200)
            #expect(try await harness.store.all().map(\.key.keyData) == [Data(repeating: 5, count: 16)])

            // Nothing left to store is still a success, and the TAN is spent like any other.
            let nothing = try await harness.submit(Payloads.bytes([future]), tan: harness.verification.issue())
            #expect(nothing.status == 200)
            #expect(harness.verification.callCount("confirm") == 2)
            #expect(try await harness.storedCount() == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func duplicateKeysAreSkipped(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let a = Payloads.key(1, today: harness.today, daysAgo: 1)
            let b = Payloads.key(2, today: harness.today, daysAgo: 2)
            let c = Payloads.key(3, today: harness.today, daysAgo: 3)
            let first = try await harness.submit(Payloads.bytes([a, b, a]), tan: harness.verification.issue())
            let second = try await harness.submit(Payloads.bytes([a, c]), tan: harness.verification.issue())
            #expect(first.status == 200 && second.status == 200)
            #expect(try await harness.storedCount() == 3)
            // The primary key is (key data, submission type): a rapid test upload of the same key is kept.
            let rapid = Payloads.bytes([a]) { $0.submissionType = .rapidTest }
            #expect(try await harness.submit(rapid, tan: harness.verification.issue()).status == 200)
            #expect(try await harness.store.all().map(\.key.submissionType) == [0, 1, 0, 0])
        }
    }

    @Test(arguments: TestDatabase.all)
    func keyPaddingStoresRandomCompanions(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind, environment: ["KEY_PADDING_MULTIPLIER": "3"]) { harness in
            let keys = [Payloads.key(1, today: harness.today, daysAgo: 1), Payloads.key(2, today: harness.today, daysAgo: 2)]
            #expect(try await harness.submit(Payloads.bytes(keys), tan: harness.verification.issue()).status == 200)
            let stored = try await harness.store.all()
            #expect(stored.count == 6)
            #expect(Set(stored.map(\.key.keyData)).isSuperset(of: keys.map(\.keyData)))
            #expect(stored.filter { $0.key.rollingStartIntervalNumber == harness.today - 144 }.count == 3)
        }
    }

    /// The attack: the same TAN and keys sent again within the hour (a repeat, which verification accepts) stored
    /// fresh padding every time, so 200 repeats published 200 times the padding. Padding now goes only with keys
    /// that were stored.
    @Test(arguments: TestDatabase.all)
    func repeatingASubmissionStoresNoMorePadding(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind, environment: ["KEY_PADDING_MULTIPLIER": "3"]) { harness in
            let keys = [Payloads.key(1, today: harness.today, daysAgo: 1), Payloads.key(2, today: harness.today, daysAgo: 2)]
            let tan = harness.verification.issue()
            let first = try await harness.submit(Payloads.bytes(keys), tan: tan)
            #expect(first.status == 200)
            let storedFirst = try await harness.storedCount()
            #expect(storedFirst == 6)
            for _ in 0..<5 {
                let repeated = try await harness.submit(Payloads.bytes(keys), tan: tan)
                #expect(repeated.status == 200)
            }
            #expect(harness.verification.callCount("confirm") == 6)
            let storedAfterRepeats = try await harness.storedCount()
            #expect(storedAfterRepeats == 6)
        }
    }

    @Test(arguments: TestDatabase.all)
    func oversizedBodiesAre400(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind, environment: ["MAX_BODY_BYTES": "2000"]) { harness in
            let tan = harness.verification.issue()
            // Padding counts toward the cap.
            let padded = Payloads.bytes([Payloads.key(1, today: harness.today)]) { $0.requestPadding = Data(count: 2000) }
            let response = try await harness.submit(padded, tan: tan)
            #expect(response.status == 400)
            #expect(response.json["error"] as? String == "body_too_large")
            let fits = Payloads.bytes([Payloads.key(1, today: harness.today)]) { $0.requestPadding = Data(count: 1900) }
            #expect(try await harness.submit(fits, tan: tan).status == 200)
        }
    }

    @Test func theSizeCapIsAnsweredBeforeTheBodyIsRead() async throws {
        try await SubmissionHarness.run(.sqlite) { harness in
            // Announce 50 MB and send none of it: the answer must come anyway.
            let port = Int(harness.client.baseURL.split(separator: ":").last!)!
            let answer = try await RawHTTP.exchange(port: port, request: """
                POST /version/v1/diagnosis-keys HTTP/1.1\r
                Host: 127.0.0.1\r
                cwa-fake: 0\r
                cwa-authorization: \(harness.verification.issue())\r
                Content-Type: application/x-protobuf\r
                Content-Length: 50000000\r
                \r

                """)
            #expect(answer.hasPrefix("HTTP/1.1 400"))
            #expect(answer.contains("body_too_large"))
        }
    }
}
