import ExposureCore
import ExposureTestSupport
import Foundation
@testable import TestResultDomain
import Testing
@testable import TestResult

@Suite struct LabAuthenticationTests {
    @Test(arguments: TestDatabase.all)
    func missingOrUnknownCredentialsAre401(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            var refused: [TestResponse] = []
            for (path, positive) in TestResultHarness.labPaths {
                let results: [[String: Any]] = [["id": TestResultHarness.guid(1), "result": positive]]
                #expect(try await h.lab.postJSON(path, ["testResults": results]).status == 401, "\(path)")
                #expect(try await h.lab.postJSON(path, ["testResults": results], headers: [("Authorization", "Basic abc")]).status == 401, "\(path)")
                let forged = LabAPIKey.generate(using: SystemRandomSource())
                let response = try await h.post(path, results: results, key: forged)
                refused.append(response)
            }
            Covers.status(401, of: "POST /api/v1/lab/results", among: refused, error: "unauthorized")
            Covers.status(401, of: "POST /api/v1/quicktest/results", among: refused, error: "unauthorized")
            try #require(try await h.count() == 0)
        }
    }

    /// Without TLS nothing strips a client-sent fingerprint header, and fingerprints are public: a registered
    /// certificate must not authenticate through it (ClientCertificateTests covers the TLS listener).
    @Test(arguments: TestDatabase.all)
    func aFingerprintHeaderIsNoCredentialOnAPlainListener(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let fingerprint = SecretHash.sha256Hex("a registered lab certificate")
            try await LabCredentialStore(database: h.database).add(labID: "lab-munich", keyHash: fingerprint, kind: .certificate, now: h.clock.now())
            let body: [String: Any] = ["testResults": [["id": TestResultHarness.guid(1), "result": 2]]]
            let response = try await h.lab.postJSON("/api/v1/lab/results", body, headers: [("x-exposure-client-cert-sha256", fingerprint)])
            #expect(response.status == 401)
            #expect(response.json["error"] as? String == "unauthorized")
            try #require(try await h.count() == 0)
        }
    }

    /// An operator registering a certificate for a listener without TLS learns that it cannot be used yet.
    @Test func addingACertificateWithoutTLSSaysItWaitsForTLS() async throws {
        try await TestDatabase.sqlite.withFreshDatabaseURL { url in
            let configuration = try TestResultConfiguration(TestServices.settings(["DATABASE_URL": url.connectionString]))
            let fingerprint = SecretHash.sha256Hex("a lab certificate")
            let output = try await TestResultAdmin.labs(["add-cert", "lab-munich", fingerprint], configuration: configuration, environment: TestServices.environment())
            #expect(output.contains("Lab lab-munich can now post results over TLS with the client certificate \(fingerprint)."))
            #expect(output.contains("accepts API keys only"))
            let listed = try await TestResultAdmin.labs(["list"], configuration: configuration, environment: TestServices.environment())
            #expect(listed.contains("lab-munich"))
        }
    }

    /// `labs list --json`: the table's rows as one JSON document; `labs` words are parsed as the executable parses them.
    @Test func labsListAsJSONNamesEveryCredential() async throws {
        try await TestDatabase.sqlite.withFreshDatabaseURL { url in
            let configuration = try TestResultConfiguration(TestServices.settings(["DATABASE_URL": url.connectionString]))
            let labs = { (words: [String]) in try await TestResultAdmin.labs(words, configuration: configuration, environment: TestServices.environment()) }
            #expect(try await labs(["list", "--json"]) == #"{"credentials":[]}"#)
            let fingerprint = SecretHash.sha256Hex("a lab certificate")
            _ = try await labs(["add-cert", "lab-munich", fingerprint])
            let document = try #require(try JSONSerialization.jsonObject(with: Data(try await labs(["list", "--json"]).utf8)) as? [String: [[String: Any]]])
            let row = try #require(document["credentials"]?.first)
            #expect(row["labId"] as? String == "lab-munich")
            #expect(row["kind"] as? String == "certificate")
            #expect(fingerprint.hasPrefix(try #require(row["fingerprint"] as? String)))
            #expect(row["state"] as? String == "active")
            #expect(row["revokedAt"] is NSNull && row["lastUsed"] is NSNull)
            #expect(try await labs(["list"]).hasPrefix("LAB\tCREDENTIAL\tCREATED\tSTATE\tLAST USED\nlab-munich\tcertificate "))
            #expect(try await labs(["list"]).hasSuffix("\tactive\tnever"))
            await #expect(throws: UsageError.self) { try await labs(["list", "--verbose"]) }
            await #expect(throws: UsageError.self) { try await labs(["add"]) }
            await #expect(throws: UsageError.self) { try await labs([]) }
        }
    }

    @Test(arguments: TestDatabase.all)
    func aLabCannotClaimAnotherLabsId(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(1)
            let rejected = ["kind": "pcr", "reason": "lab_mismatch"]
            let before = try await h.metric("testresult_batches_rejected_total", rejected)
            let response = try await h.post(results: [["id": id, "result": 2]], labId: "lab-munich")
            Covers.status(403, of: "POST /api/v1/lab/results", response, error: "lab_mismatch")
            try #require(try await h.count() == 0)
            // Other tests in the process may count too, so at least one more.
            #expect(try await h.metric("testresult_batches_rejected_total", rejected) >= before + 1)
            let quick = try await h.post("/api/v1/quicktest/results", results: [["id": id, "result": 7]], labId: "lab-munich")
            Covers.status(403, of: "POST /api/v1/quicktest/results", quick, error: "lab_mismatch")
            try #require(try await h.count() == 0)
            // Its own id is fine, and the stored lab id is the credential's.
            try #require(try await h.post(results: [["id": id, "result": 2]], labId: TestResultHarness.labID).status == 204)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aLabCannotOverwriteAnotherLabsResult(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(2)
            try #require(try await h.post(results: [["id": id, "result": 1]]).status == 204)
            let other = try await TestResultAdmin.addLab("lab-munich", store: LabCredentialStore(database: h.database), random: SystemRandomSource(), now: h.clock.now())
            let before = try await h.metric("testresult_updates_refused_total", ["kind": "pcr"])
            try #require(try await h.post(results: [["id": id, "result": 2]], key: other).status == 204)
            #expect(try await h.metric("testresult_updates_refused_total", ["kind": "pcr"]) >= before + 1)
            let answer = try await h.query(id)
            #expect(answer.json["testResult"] as? Int == 1)
            #expect(answer.json["labId"] as? String == TestResultHarness.labID)
        }
    }

    /// A credential's last day of use is written on its first use of a day, once per day and replica: a second post
    /// the same day writes nothing (the column cleared here stays clear), the next day's first post writes again.
    @Test(arguments: TestDatabase.all)
    func theLastDayACredentialWasUsedIsWrittenOnceADay(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let store = LabCredentialStore(database: h.database)
            let today = h.clock.now().epochSeconds / 86_400
            #expect(try await store.list().map(\.lastUsedDay) == [nil])
            try #require(try await h.post(results: [["id": TestResultHarness.guid(1), "result": 2]]).status == 204)
            #expect(try await store.list().map(\.lastUsedDay) == [today])

            try await h.database.withConnection { try await $0.raw("UPDATE lab_credentials SET last_used_day = NULL").run() }
            try #require(try await h.post(results: [["id": TestResultHarness.guid(2), "result": 2]]).status == 204)
            #expect(try await store.list().map(\.lastUsedDay) == [nil])

            h.clock.advance(by: 86_400)
            try #require(try await h.post(results: [["id": TestResultHarness.guid(3), "result": 2]]).status == 204)
            #expect(try await store.list().map(\.lastUsedDay) == [today + 1])
            // A refused key notes nothing.
            try await h.database.withConnection { try await $0.raw("UPDATE lab_credentials SET last_used_day = NULL").run() }
            try #require(try await h.post(results: [["id": TestResultHarness.guid(4), "result": 2]], key: LabAPIKey.generate(using: SystemRandomSource())).status == 401)
            #expect(try await store.list().map(\.lastUsedDay) == [nil])
        }
    }

    @Test(arguments: TestDatabase.all)
    func revokedKeysStopWorking(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let store = LabCredentialStore(database: h.database)
            try #require(try await store.revoke(labID: TestResultHarness.labID, now: h.clock.now()) == 1)
            try #require(try await h.post(results: [["id": TestResultHarness.guid(1), "result": 2]]).status == 401)
            let listed = try await store.list()
            #expect(listed.count == 1)
            #expect(listed[0].revokedAt != nil)
        }
    }

    /// Rotation without an outage: a second key works beside the first, then the first alone is revoked by the
    /// fingerprint `labs list` shows.
    @Test(arguments: TestDatabase.all)
    func aLabKeyRotatesWithoutAnOutage(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let store = LabCredentialStore(database: h.database)
            let environment = TestServices.environment(clock: h.clock)
            let next = try await TestResultAdmin.addLab(TestResultHarness.labID, store: store, random: SystemRandomSource(), now: h.clock.now())
            #expect(try await h.post(results: [["id": TestResultHarness.guid(1), "result": 2]]).status == 204)
            #expect(try await h.post(results: [["id": TestResultHarness.guid(2), "result": 2]], key: next).status == 204)

            let old = try #require(try await store.list().first { LabAPIKey.hash(h.labKey).hasPrefix($0.fingerprint) })
            await #expect(throws: UsageError.self) {
                try await TestResultAdmin.revoke(TestResultHarness.labID, credential: "0000", store: store, environment: environment)
            }
            await #expect(throws: UsageError.self) {
                try await TestResultAdmin.revoke("another-lab", credential: old.fingerprint, store: store, environment: environment)
            }
            let output = try await TestResultAdmin.revoke(TestResultHarness.labID, credential: old.fingerprint + "…", store: store, environment: environment)
            #expect(output.contains("Revoked credential \(old.fingerprint) of lab \(TestResultHarness.labID)"))

            #expect(try await h.post(results: [["id": TestResultHarness.guid(3), "result": 2]]).status == 401)
            #expect(try await h.post(results: [["id": TestResultHarness.guid(4), "result": 2]], key: next).status == 204)
            let states = try await store.list().map { $0.revokedAt == nil }
            #expect(states.sorted { !$0 && $1 } == [false, true])
            // Revoked already: nothing active matches any more.
            await #expect(throws: UsageError.self) {
                try await TestResultAdmin.revoke(TestResultHarness.labID, credential: old.fingerprint, store: store, environment: environment)
            }

            // A prefix shared by two credentials revokes neither; a longer one revokes the one it names.
            let twins = ["abcdef12" + String(repeating: "0", count: 56), "abcdef12" + String(repeating: "1", count: 56)]
            for twin in twins { try await store.add(labID: "lab-munich", keyHash: twin, kind: .certificate, now: h.clock.now()) }
            await #expect(throws: UsageError.self) {
                try await TestResultAdmin.revoke("lab-munich", credential: "abcdef12", store: store, environment: environment)
            }
            _ = try await TestResultAdmin.revoke("lab-munich", credential: "abcdef121", store: store, environment: environment)
            #expect(try await store.labID(forKeyHash: twins[0], kind: .certificate) == "lab-munich")
            #expect(try await store.labID(forKeyHash: twins[1], kind: .certificate) == nil)
        }
    }

    @Test func apiKeysAreWellFormedAndStoredHashed() {
        let key = LabAPIKey.generate(using: SeededRandomSource(seed: 1))
        #expect(LabAPIKey.isWellFormed(key))
        #expect(!LabAPIKey.isWellFormed(key + "x"))
        #expect(LabAPIKey.hash(key).count == 64)
        #expect(LabAPIKey.hash(key) != key)
        #expect(LabAPIKey.isValidLabID("lab-berlin.1"))
        #expect(!LabAPIKey.isValidLabID("lab berlin"))
        #expect(!LabAPIKey.isValidLabID(""))
    }
}
