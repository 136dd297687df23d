import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain
@testable import VerificationENX

/// The ENX issuer endpoints as a health authority's system calls them (docs/enx.md, 2.4 to 2.6; the acceptance list's
/// items 1 to 8), on both databases.
@Suite struct ENXIssuerTests {
    /// Item 1: a code of the documented form, stored only as keyed hashes.
    @Test(arguments: TestDatabase.all)
    func anAdminKeyIssuesACodeOfTheDocumentedForm(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let answer = try await enx.issue(["testType": "confirmed", "symptomDate": enx.day(2)])
            Covers.status(200, of: "POST /api/issue", answer.as(.enx))
            let uuid = try #require(answer.json["uuid"] as? String)
            #expect(UUID(uuidString: uuid) != nil && uuid == uuid.lowercased())
            let code = try #require(answer.json["code"] as? String)
            #expect(code.count == 8 && code.allSatisfy(\.isNumber))
            #expect(answer.json["expiresAtTimestamp"] as? Int == Int(enx.now + 900))
            // The harness's clock is 2025-06-15 15:06:40 UTC, a Sunday.
            #expect(answer.json["expiresAt"] as? String == "Sun, 15 Jun 2025 15:21:40 UTC")
            // Without SMS the long code is never handed out, so it ends with the short one, as the reference's does.
            #expect(answer.json["longExpiresAtTimestamp"] as? Int == answer.json["expiresAtTimestamp"] as? Int)
            #expect(answer.json["longExpiresAt"] as? String == answer.json["expiresAt"] as? String)
            #expect(answer.json["error"] == nil && answer.json["errorCode"] == nil)
            ENXHarness.expectPadding(answer)
            let stored = try await enx.h.database.withConnection { connection in
                try await connection.raw("SELECT code_hash, long_code_hash, issued_by, test_type, symptom_day FROM enx_codes").all()
            }
            #expect(stored.count == 1)
            let row = try #require(stored.first)
            // The HMAC under the teleTAN key, outside the database: a plain hash of the 10⁸ codes would give each away.
            let keyed = TypedSecretHasher(keys: try SecretHashKey.parseList(TestServices.teleTANHashKeys, variable: "TELETAN_HASH_KEYS")).hash("ENX:\(code)")
            #expect(try row.decode(column: "code_hash", as: String.self) == keyed.hash)
            #expect(keyed.hash != SecretHash.sha256Hex("ENX:\(code)"))
            #expect(try row.decode(column: "issued_by", as: String.self) == "ha-system")
            #expect(try row.decode(column: "symptom_day", as: Int64.self) == UTCDay(containing: enx.now).adding(days: -2).number)
        }
    }

    /// Item 2: no key, an unknown one, a device key, or the key of a disabled authority: 401, `unauthorized` in JSON to
    /// a caller that speaks it, in plain text otherwise.
    @Test(arguments: TestDatabase.all)
    func keysOfNoneOrAnotherRoleAreRefused(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            try await enx.h.addAuthority("ha-off")
            let disabledKey = try await enx.h.enxKey("admin", name: "off-system", authority: "ha-off")
            _ = try await enx.h.authorities(["disable", "--id", "ha-off"])
            let body: [String: Any] = ["testType": "confirmed", "symptomDate": enx.day(1)]
            var refused: [String: [FamilyAnswer]] = [:]
            for path in [ENXHarness.issue, ENXHarness.batchIssue, ENXHarness.checkCodeStatus, ENXHarness.expireCode] {
                for key in [nil, "enx_" + String(repeating: "A", count: 43), "nonsense", enx.device, disabledKey] as [String?] {
                    let answer = try await enx.call(enx.h.issuer, path, path == ENXHarness.batchIssue ? ["codes": [body]] : body, key: key)
                    #expect(answer.json["error"] as? String == "unauthorized", "\(path): \(answer.text)")
                    refused[path, default: []].append(answer.as(.enx))
                }
            }
            Covers.status(401, of: "POST /api/issue", among: refused[ENXHarness.issue] ?? [], error: "")
            Covers.status(401, of: "POST /api/batch-issue", among: refused[ENXHarness.batchIssue] ?? [], error: "")
            Covers.status(401, of: "POST /api/checkcodestatus", among: refused[ENXHarness.checkCodeStatus] ?? [], error: "")
            Covers.status(401, of: "POST /api/expirecode", among: refused[ENXHarness.expireCode] ?? [], error: "")
            let plain = try await enx.h.issuer.request(.POST, ENXHarness.issue, headers: [("X-API-Key", enx.device)], body: Array("{}".utf8))
            #expect(plain.status == 401 && plain.text == "unauthorized\n" && plain.header("Content-Type") == "text/plain; charset=utf-8")
            // The key of an authority that is served works, and the disabled authority's works again once enabled.
            _ = try await enx.h.authorities(["enable", "--id", "ha-off"])
            #expect(try await enx.issue(body, key: disabledKey).status == 200)
        }
    }

    /// Item 3: each bad request is refused with the reference's code, in its order; field names match without regard
    /// to case.
    @Test(arguments: TestDatabase.all)
    func badIssueRequestsAreRefusedWithTheReferencesCodes(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let cases: [([String: Any], String)] = [
                (["testType": "positive", "symptomDate": enx.day(1)], "invalid_test_type"),
                (["testType": "confirmed"], "missing_date"),
                (["testType": "confirmed", "symptomDate": enx.day(-1)], "invalid_date"),
                (["testType": "confirmed", "testDate": enx.day(30)], "invalid_date"),
                (["testType": "confirmed", "symptomDate": "2020/11/20"], "unparsable_request"),
                (["testType": "confirmed", "symptomDate": enx.day(1), "color": "red"], "unparsable_request"),
                (["testType": "confirmed", "symptomDate": 20201120], "unparsable_request"),
                (["testType": "confirmed", "symptomDate": enx.day(1), "uuid": "not-a-uuid"], "unparsable_request"),
                (["testType": "confirmed", "symptomDate": enx.day(1), "onlyGenerateSMS": true, "phone": "+15555550100"], "unparsable_request"),
                (["testType": "user-report", "symptomDate": enx.day(1)], "unsupported_test_type"),
                // No SMS provider: a phone is refused without a code, as the reference refuses it.
                (["testType": "confirmed", "symptomDate": enx.day(1), "phone": "+15555550100"], ""),
            ]
            var answers: [FamilyAnswer] = []
            for (body, code) in cases {
                let answer = try await enx.issue(body)
                #expect(answer.json["errorCode"] as? String == code, "\(body): \(answer.text)")
                answers.append(answer.as(.enx))
            }
            Covers.status(400, of: "POST /api/issue", among: answers)
            let plain = try await enx.h.issuer.postRaw(
                ENXHarness.issue, Array(#"{"testType":"confirmed","symptomDate":"\#(enx.day(1))"}"#.utf8), headers: [("X-API-Key", enx.admin)], contentType: "text/plain"
            )
            plain.as(.enx).expectError(400, "unparsable_request")
            let twoObjects = try await enx.h.issuer.postRaw(ENXHarness.issue, Array(#"{"testType":"confirmed"} {}"#.utf8), headers: [("X-API-Key", enx.admin)])
            twoObjects.as(.enx).expectError(400, "unparsable_request")
            let huge = try await enx.h.issuer.postRaw(
                ENXHarness.issue, Array(#"{"testType":"confirmed","padding":"\#(String(repeating: "A", count: 64_000))"}"#.utf8), headers: [("X-API-Key", enx.admin)]
            )
            huge.as(.enx).expectError(400, "unparsable_request")
            // Names in any case bind to their field; a date a day before the oldest is allowed to a caller behind UTC.
            let shouted = try await enx.issue(["TESTTYPE": "LIKELY", "symptomdate": enx.day(29), "TzOffset": -300.0, "externalIssuerID": "desk-7"])
            #expect(shouted.status == 200, "\(shouted.text)")
            #expect(try await enx.issue(["testType": "likely", "symptomDate": enx.day(29)]).json["errorCode"] as? String == "invalid_date")
            #expect(try await enx.h.database.withConnection { connection in
                try await connection.raw("SELECT external_issuer FROM enx_codes").all().map { try $0.decode(column: "external_issuer", as: String?.self) }
            } == ["desk-7"])
        }
    }

    /// Item 4: a caller's uuid names one code of its authority; the second use is 409, checked before the test type.
    @Test(arguments: TestDatabase.all)
    func aCallersUUIDNamesOneCode(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let uuid = "7B0E5B30-9A2C-4A7A-8D1F-0123456789AB"
            let first = try await enx.issue(["testType": "confirmed", "testDate": enx.day(0), "uuid": uuid])
            #expect(first.json["uuid"] as? String == uuid.lowercased())
            let again = try await enx.issue(["testType": "confirmed", "testDate": enx.day(0), "uuid": uuid.lowercased()])
            Covers.status(409, of: "POST /api/issue", again.as(.enx), error: "uuid_already_exists")
            let againBadType = try await enx.issue(["testType": "positive", "testDate": enx.day(0), "uuid": uuid])
            againBadType.as(.enx).expectError(409, "uuid_already_exists")
            // Another authority's system may use the same uuid for its own code.
            try await enx.h.addAuthority("ha-b")
            let other = try await enx.h.enxKey("admin", name: "b-system", authority: "ha-b")
            #expect(try await enx.issue(["testType": "confirmed", "testDate": enx.day(0), "uuid": uuid], key: other).status == 200)
            let batch = try await enx.call(enx.h.issuer, ENXHarness.batchIssue, ["codes": [["testType": "confirmed", "testDate": enx.day(0), "uuid": uuid]]], key: enx.admin)
            Covers.status(409, of: "POST /api/batch-issue", batch.as(.enx), error: "uuid_already_exists")
        }
    }

    /// Item 6: a batch issues each item on its own; its status is the first refused item's; more than ten items, or
    /// none, are refused whole.
    @Test(arguments: TestDatabase.all)
    func aBatchIssuesEachItemOnItsOwn(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let good: [String: Any] = ["testType": "confirmed", "symptomDate": enx.day(1)]
            let two = try await enx.call(enx.h.issuer, ENXHarness.batchIssue, ["codes": [good, good]], key: enx.admin)
            Covers.status(200, of: "POST /api/batch-issue", two.as(.enx))
            let codes = try #require(two.json["codes"] as? [[String: Any]])
            #expect(codes.count == 2 && Set(codes.compactMap { $0["code"] as? String }).count == 2)
            #expect(codes.allSatisfy { $0["padding"] == nil && $0["uuid"] is String })
            ENXHarness.expectPadding(two)

            let mixed = try await enx.call(enx.h.issuer, ENXHarness.batchIssue, ["codes": [good, ["testType": "positive", "symptomDate": enx.day(1)]]], key: enx.admin)
            Covers.status(400, of: "POST /api/batch-issue", mixed.as(.enx), error: "invalid_test_type")
            #expect(mixed.json["error"] as? String == "Failed to issue 1 codes. Issued 1 codes successfully.See each error status in the codes array.")
            let items = try #require(mixed.json["codes"] as? [[String: Any]])
            #expect(items.count == 2 && items[0]["code"] is String && items[1]["errorCode"] as? String == "invalid_test_type")
            #expect(items[1]["error_code"] as? String == "invalid_test_type")

            let eleven = try await enx.call(enx.h.issuer, ENXHarness.batchIssue, ["codes": Array(repeating: good, count: 11)], key: enx.admin)
            eleven.as(.enx).expectError(400, "")
            #expect(eleven.json["error"] as? String == "batch size limit [10] exceeded")
            let none = try await enx.call(enx.h.issuer, ENXHarness.batchIssue, ["codes": []], key: enx.admin)
            none.as(.enx).expectError(400, "")
            let unknownField = try await enx.call(enx.h.issuer, ENXHarness.batchIssue, ["codes": [good.merging(["color": "red"]) { $1 }]], key: enx.admin)
            unknownField.as(.enx).expectError(400, "unparsable_request")
            // Two plus one issued: the eleven and the refused batches issued nothing.
            #expect(try await enx.h.database.withConnection { try await $0.raw("SELECT COUNT(*) AS n FROM enx_codes").first()?.decode(column: "n", as: Int.self) } == 3)
        }
    }

    /// Items 7 and 8: the status of a code by its uuid, before and after it was claimed; expiring an unclaimed code
    /// ends both forms now; a claimed one cannot be expired; another authority's uuid is unknown.
    @Test(arguments: TestDatabase.all)
    func statusAndExpiryOfACodeByItsUUID(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let (code, uuid) = try await enx.newCode()
            let fresh = try await enx.status(uuid)
            Covers.status(200, of: "POST /api/checkcodestatus", fresh.as(.enx))
            #expect(fresh.json["claimed"] as? Bool == false && fresh.json["expiresAtTimestamp"] as? Int == Int(enx.now + 900))
            ENXHarness.expectPadding(fresh)
            _ = try await enx.token(for: code)
            #expect(try await enx.status(uuid).json["claimed"] as? Bool == true)
            let claimedExpiry = try await enx.expire(uuid)
            Covers.status(400, of: "POST /api/expirecode", claimedExpiry.as(.enx), error: "")
            #expect(claimedExpiry.json["error"] as? String == "bad request")

            let (second, secondUUID) = try await enx.newCode()
            enx.h.clock.advance(by: 60)
            let expired = try await enx.expire(secondUUID.uppercased())
            Covers.status(200, of: "POST /api/expirecode", expired.as(.enx))
            #expect(expired.json["expiresAtTimestamp"] as? Int == Int(enx.now) && expired.json["longExpiresAtTimestamp"] as? Int == Int(enx.now))
            // Expiring again leaves the ends as they were.
            enx.h.clock.advance(by: 60)
            #expect(try await enx.expire(secondUUID).json["expiresAtTimestamp"] as? Int == Int(enx.now - 60))
            try await enx.verify(second).as(.enx).expectError(400, "code_expired")

            try await enx.h.addAuthority("ha-b")
            let other = try await enx.h.enxKey("admin", name: "b-system", authority: "ha-b")
            let unknowns = [
                try await enx.status(UUID().uuidString), try await enx.status("no-uuid"), try await enx.status(uuid, key: other),
                try await enx.expire(UUID().uuidString), try await enx.expire(secondUUID, key: other),
            ].map { $0.as(.enx) }
            Covers.status(404, of: "POST /api/checkcodestatus", among: unknowns, error: "code_not_found")
            Covers.status(404, of: "POST /api/expirecode", among: unknowns, error: "code_not_found")
            let unparsable = try await enx.call(enx.h.issuer, ENXHarness.checkCodeStatus, ["uuid": 7], key: enx.admin)
            Covers.status(400, of: "POST /api/checkcodestatus", unparsable.as(.enx), error: "")
            let unknownField = try await enx.call(enx.h.issuer, ENXHarness.expireCode, ["uuid": uuid, "now": true], key: enx.admin)
            unknownField.as(.enx).expectError(400, "")
        }
    }
}

/// An admin key is an issuer key: its codes count against the limits every issuer key has (docs/security.md).
@Suite struct ENXIssuerLimitTests {
    /// With two codes an hour, the third is 429 `quota_exceeded`, nothing stored; a batch stops counting at the limit
    /// too; another key of the authority keeps its own allowance. Without the count the third code would be issued.
    @Test(arguments: TestDatabase.all)
    func anAdminKeyIssuesNoMoreThanItsLimit(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["ISSUER_CODES_PER_HOUR": "2"]) { h in
            let enx = ENXHarness(h: h, admin: try await h.enxKey("admin", name: "ha-system"), device: try await h.enxKey("device", name: "enx-app"))
            let body: [String: Any] = ["testType": "confirmed", "symptomDate": enx.day(1)]
            #expect(try await enx.issue(body).status == 200)
            #expect(try await enx.issue(body).status == 200)
            let third = try await enx.issue(body)
            Covers.status(429, of: "POST /api/issue", third.as(.enx), error: "quota_exceeded")
            let other = try await h.enxKey("admin", name: "second-system")
            let batch = try await enx.call(h.issuer, ENXHarness.batchIssue, ["codes": [body, body, body]], key: other)
            Covers.status(429, of: "POST /api/batch-issue", batch.as(.enx), error: "quota_exceeded")
            let items = try #require(batch.json["codes"] as? [[String: Any]])
            #expect(items.map { $0["code"] != nil } == [true, true, false])
            #expect(try await h.database.withConnection { try await $0.raw("SELECT COUNT(*) AS n FROM enx_codes").first()?.decode(column: "n", as: Int.self) } == 4)
            // The next clock hour brings a new allowance.
            h.clock.advance(by: 3600)
            #expect(try await enx.issue(body).status == 200)
        }
    }
}

/// The family's settings: ENX needs the key the authorities' signing keys are sealed under.
@Suite struct ENXConfigurationTests {
    @Test func enxNeedsTheSigningKeysSealingKey() throws {
        let base = ["TELETAN_HASH_KEYS": TestServices.teleTANHashKeys, "ENX_ENABLED": "true"]
        let withoutSealingKey = TestServiceTokens.serviceDefaults.filter { !$0.key.hasPrefix("SIGNING_KEY_ENCRYPTION_KEY") }.merging(base) { $1 }
        let refusal = #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(Settings(arguments: ["test"], environment: withoutSealingKey))
        }
        #expect(refusal?.variable == "ENX_ENABLED")
        _ = try VerificationConfiguration(Settings(arguments: ["test"], environment: withoutSealingKey.merging(["ENX_ENABLED": "false"]) { $1 }))
        let configuration = try VerificationConfiguration(TestServices.settings(base.merging(["ENX_CERTIFICATE_LIFETIME": "5m"]) { $1 }))
        #expect(configuration.families.enx && configuration.enx.certificateLifetime == .seconds(300))
        #expect(throws: ConfigurationError.self) { try VerificationConfiguration(TestServices.settings(base.merging(["ENX_CERTIFICATE_LIFETIME": "2h"]) { $1 })) }
    }
}

/// ENX codes in verification's daily statistics (docs/statistics.md), beside the other families' codes.
@Suite struct ENXStatisticsTests {
    /// Two codes issued by one key, one of them verified: counted by family, authority and key, and claimed once;
    /// refusals and chaff count nothing.
    @Test(arguments: TestDatabase.all)
    func codesAreCountedIssuedAndClaimed(kind: TestDatabase) async throws {
        try await ENXHarness.run(on: kind) { enx in
            let (code, _) = try await enx.newCode()
            _ = try await enx.newCode("likely")
            _ = try await enx.issue(["testType": "positive", "symptomDate": enx.day(1)])
            _ = try await enx.token(for: code)
            _ = try await enx.verify(code)
            _ = try await enx.call(enx.h.app, ENXHarness.verify, ["code": code], key: enx.device, headers: [("X-Chaff", "1")])
            let today = StatisticsDay(of: enx.h.clock.now())
            let store = DailyStatisticsStore(database: enx.h.database, service: "verification")
            let expected = [
                "codes_issued/enx=2", "codes_issued_by_authority/default=2", "codes_issued_by_issuer/enx:ha-system=2", "codes_redeemed/enx=1",
            ]
            try await pollUntil { try await store.counts(from: today, through: today).count == expected.count }
            #expect(try await store.counts(from: today, through: today).map { "\($0.figure)/\($0.breakdown)=\($0.count)" }.sorted() == expected)
        }
    }
}
