import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// The issuer listener, as health-authority systems call it: CovidShield's `/new-key-claim` and ProteGO's callable
/// `generateCode` and `generateCodesBatch`, each answer in the family's own wire format as the sheets give it, and the
/// `issuers` command that makes their credentials.
@Suite struct IssuerTests {
    static let newKeyClaim = "/new-key-claim"

    /// `issuers add` prints the token once and keeps its SHA-256; `list` shows issuers without their tokens; `remove`
    /// ends a token at once.
    @Test(arguments: TestDatabase.all)
    func theCommandAddsListsAndRemovesIssuers(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let added = try await h.issuers(["add", "--name", "ontario-ha", "--kind", "covidshield", "--region", "ON"])
            #expect(added.contains("Issuer ontario-ha can now issue COVIDSHIELD codes for region ON"))
            #expect(added.contains("Authorization: Bearer iss_"))
            #expect(added.contains("shown only once"))
            let token = try #require(added.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("iss_") }.map(String.init))
            #expect(IssuerToken.isWellFormed(token))
            let stored = try await h.database.withConnection { connection in
                try await connection.raw("SELECT token_hash FROM code_issuers").all().map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(stored == [IssuerToken.hash(token)])

            // Without --region, the kind's configured region.
            let proteGO = try await h.issuers(["add", "--name", "gis-pl", "--kind", "PROTEGO"])
            #expect(proteGO.contains("PROTEGO codes for region PL") && proteGO.contains("api-token: iss_"))
            let table = try await h.issuers(["list"])
            #expect(table.hasPrefix("ISSUER\tKIND\tREGION\tAUTHORITY\tTOKEN\tCREATED\tEXPIRES\tLAST USED\n"))
            #expect(table.contains("gis-pl\tprotego\tPL\tdefault\t") && table.contains("ontario-ha\tcovidshield\tON\tdefault\t\(IssuerToken.hash(token).prefix(12))…"))
            #expect(!table.contains(token))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try await h.issuers(["list", "--json"]).utf8)) as? [String: [[String: Any]]])
            #expect(json["issuers"]?.map { $0["name"] as? String } == ["gis-pl", "ontario-ha"])
            #expect(json["issuers"]?.last?["kind"] as? String == "covidshield")
            #expect(json["issuers"]?.last?["authority"] as? String == "default")
            #expect(json["issuers"]?.last?["createdAt"] as? String == Date.iso8601(h.clock.now().epochSeconds))
            // Made here, it names no creator; no expiry, never used.
            #expect(json["issuers"]?.last?["createdBy"] is NSNull && json["issuers"]?.last?["expiresAt"] is NSNull)
            #expect(json["issuers"]?.last?["lastUsed"] is NSNull && table.contains("\tnever\tnever"))

            for wrong in [
                ["add", "--name", "ontario-ha", "--kind", "covidshield"],  // taken
                ["add", "--name", "has space", "--kind", "covidshield"],
                ["add", "--name", "x", "--kind", "lemon"],
                ["add", "--name", "x", "--kind", "protego", "--region", "P L"],
                ["add", "--name", "x", "--kind", "protego", "--authority", "nowhere"],
                ["add", "--name", "x", "--kind", "protego", "--authority", "Not An Id"],
                ["add", "--name", "x"],
                [],
            ] {
                await #expect(throws: UsageError.self, "\(wrong)") { try await h.issuers(wrong) }
            }
            #expect(try await h.newKeyClaim(token: token).status == 200)
            #expect(try await h.issuers(["remove", "--name", "ontario-ha"]) == "Removed issuer ontario-ha.")
            #expect(try await h.issuers(["remove", "--name", "ontario-ha"]) == "No issuer ontario-ha.")
            #expect(try await h.newKeyClaim(token: token).status == 401)
            #expect(try await h.issuers(["list", "--json"]).contains("gis-pl"))
        }
    }

    /// `issuers add --last-day` gives a token that works through the end of that day (UTC) and is an unknown token from
    /// the next day on; a day that has passed, or one that is not a day, is refused before anything is stored.
    @Test(arguments: TestDatabase.all)
    func theCommandsLastDayEndsTheTokenAfterThatDay(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let today = StatisticsDay(of: h.clock.now())
            let lastDay = StatisticsDay(number: today.number + 1)
            let added = try await h.issuers(["add", "--name", "ontario-ha", "--kind", "covidshield", "--last-day", lastDay.description])
            #expect(added.contains("works until the end of \(lastDay) (UTC)"))
            let token = try #require(added.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("iss_") }.map(String.init))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try await h.issuers(["list", "--json"]).utf8)) as? [String: [[String: Any]]])
            #expect(json["issuers"]?.first?["expiresAt"] as? String == Date.iso8601((lastDay.number + 1) * 86400))

            h.clock.set(Date(timeIntervalSince1970: TimeInterval((lastDay.number + 1) * 86400 - 1)))
            #expect(try await h.newKeyClaim(token: token).status == 200)
            h.clock.advance(by: 1)
            #expect(try await h.newKeyClaim(token: token).status == 401)

            for wrong in [
                ["add", "--name", "x", "--kind", "protego", "--last-day", today.description],  // ended with the clock above
                ["add", "--name", "x", "--kind", "protego", "--last-day", "tomorrow"],
                ["add", "--name", "x", "--kind", "protego", "--last-day", "2026-13-01"],
            ] {
                await #expect(throws: UsageError.self, "\(wrong)") { try await h.issuers(wrong) }
            }
            #expect(try await h.issuers(["list"]).split(separator: "\n").count == 2)
        }
    }

    /// CovidShield's acceptance test 1 and the sheet's answers: 200 `^[0-9]{8}\n$` with `Access-Control-Allow-Origin: *`
    /// for a good token; the code is claimed once, for the issuer's region, within 10 minutes.
    @Test(arguments: TestDatabase.all)
    func newKeyClaimAnswersAnEightDigitCodeForTheIssuersRegion(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.addIssuer("quebec-ha", kind: "covidshield", region: "QC")
            let issued = try await h.newKeyClaim(token: token)
            Covers.status(200, of: "POST /new-key-claim", issued.as(.plainText))
            #expect(issued.text.range(of: "^[0-9]{8}\n$", options: .regularExpression) != nil, "\(issued.text)")
            #expect(issued.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(issued.header("Access-Control-Allow-Origin") == "*")
            let code = String(issued.text.dropLast())
            let redeemed = try await h.redeemCode("COVIDSHIELD", code)
            #expect(redeemed.status == 200)
            #expect(redeemed.json["region"] as? String == "QC")
            #expect(try await h.redeemCode("COVIDSHIELD", code).status == 404)

            // A body is ignored; codes die 10 minutes after issue.
            let withBody = try await h.issuer.request(.POST, Self.newKeyClaim, headers: [("Authorization", "Bearer \(token)")], body: Array("ignored".utf8))
            let late = String(withBody.text.dropLast())
            h.clock.advance(by: 600)
            #expect(try await h.redeemCode("COVIDSHIELD", late).status == 404)
        }
    }

    @Test(arguments: TestDatabase.all)
    func newKeyClaimRefusesInTheReferencesWords(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.addIssuer("ontario-ha", kind: "covidshield")
            let proteGOToken = try await h.addIssuer("gis-pl", kind: "protego")
            let preflight = try await h.issuer.request(.OPTIONS, Self.newKeyClaim)
            Covers.status(200, of: "OPTIONS /new-key-claim", preflight.as(.plainText))
            #expect(preflight.header("Access-Control-Allow-Origin") == "*")
            #expect(preflight.header("Access-Control-Allow-Methods") == "POST")
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
            #expect(preflight.body.isEmpty)

            let get = try await h.issuer.request(.GET, Self.newKeyClaim, headers: [("Authorization", "Bearer \(token)")])
            Covers.status(405, of: "GET /new-key-claim", get.as(.plainText), error: "method not allowed")
            let otherMethods = [
                try await h.issuer.request(.PUT, Self.newKeyClaim, headers: [("Authorization", "Bearer \(token)")]),
                try await h.issuer.request(.DELETE, Self.newKeyClaim), try await h.issuer.request(.PATCH, Self.newKeyClaim),
            ]
            #expect(otherMethods.allSatisfy { $0.status == 405 && $0.text == "method not allowed\n" })

            var unauthorized: [TestResponse] = []
            for header in [nil, "bearer \(token)", "Bearer  \(token)", "Basic \(token)", "Bearer", "Bearer iss_unknown",
                           "Bearer \(IssuerToken.generate(using: SystemRandomSource()))", "Bearer \(proteGOToken)"] {
                unauthorized.append(try await h.issuer.request(.POST, Self.newKeyClaim, headers: header.map { [("Authorization", $0)] } ?? []))
            }
            Covers.status(401, of: "POST /new-key-claim", among: unauthorized.map { $0.as(.plainText) }, error: "unauthorized")
            #expect(unauthorized.allSatisfy { $0.text == "unauthorized\n" && $0.header("Access-Control-Allow-Origin") == nil })

            try await FailureInjection.fail(.insert, on: "one_time_codes", in: h.database)
            let failed = try await h.newKeyClaim(token: token)
            Covers.status(500, of: "POST /new-key-claim", failed.as(.plainText), error: "server error")
            try await FailureInjection.remove(from: "one_time_codes", in: h.database)
            #expect(try await h.rows("one_time_codes") == 0)
            #expect(try await h.newKeyClaim(token: token).status == 200)
            // Nothing of the issuer listener on the others.
            #expect(try await h.internal.request(.POST, Self.newKeyClaim, headers: [("Authorization", "Bearer \(token)")]).status == 404)
            #expect(try await h.app.request(.POST, "/generateCode").status == 404)
            #expect(try await h.issuer.postJSON("/version/v1/codes/redeem", ["kind": "COVIDSHIELD", "code": "12345678"]).status == 404)
        }
    }

    /// ProteGO's `generateCode`: a callable function answering `{"result": "<PIN>"}` for an issuer's `api-token`.
    @Test(arguments: TestDatabase.all)
    func generateCodeAnswersAPINForTheIssuersRegion(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.addIssuer("gis-pl", kind: "protego")
            for data in ["{}", "null", "\"anything\""] {
                let answer = try await h.callable("/generateCode", #"{"data":\#(data)}"#, token: token)
                Covers.status(200, of: "POST /generateCode", answer.as(.firebaseCallable))
                let pin = try #require(answer.json["result"] as? String)
                #expect(OneTimeCodeKind.proteGO.isWellFormed(pin), "\(pin)")
                #expect(answer.json.count == 1)
                let redeemed = try await h.redeemCode("PROTEGO", pin)
                #expect(redeemed.json["region"] as? String == "PL")
                #expect(redeemed.json["uploadToken"] is String)
            }
            // 30 minutes.
            let pin = try #require(try await h.callable("/generateCode", #"{"data":{}}"#, token: token).json["result"] as? String)
            h.clock.advance(by: 1800)
            #expect(try await h.redeemCode("PROTEGO", pin).status == 404)
        }
    }

    /// The refusals of a callable function, as Firebase and the reference give them: no callable request (400
    /// INVALID_ARGUMENT `Bad Request`), then the token (403 PERMISSION_DENIED), then the store (500 INTERNAL).
    @Test(arguments: TestDatabase.all)
    func callableFunctionsRefuseAsFirebaseDoes(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.addIssuer("gis-pl", kind: "protego")
            let covidShieldToken = try await h.addIssuer("ontario-ha", kind: "covidshield")
            let batch = #"{"data":{"numberOfCodes":2,"duration":1800}}"#
            for (path, valid) in [("/generateCode", #"{"data":{}}"#), ("/generateCodesBatch", batch)] {
                var badRequests: [TestResponse] = []
                for (body, contentType) in [
                    (valid, "text/plain"), (valid, "application/x-www-form-urlencoded"), ("", "application/json"),
                    ("not json", "application/json"), ("[]", "application/json"), (#"{"data":{},"extra":1}"#, "application/json"),
                    (#"{"other":{}}"#, "application/json"), ("{}", "application/json"),
                    (String(repeating: " ", count: IssuerAPI.maxCallableBody) + valid, "application/json"),
                ] {
                    badRequests.append(try await h.issuer.postRaw(path, Array(body.utf8), headers: [("api-token", token)], contentType: contentType))
                }
                // Another method, even with a good token, is no call.
                let get = try await h.issuer.request(.GET, path, headers: [("api-token", token)])
                #expect(get.status == 400 && (get.json["error"] as? [String: Any])?["status"] as? String == "INVALID_ARGUMENT")
                // A wrong envelope is refused before the token is looked at.
                badRequests.append(try await h.issuer.postRaw(path, Array("{}".utf8), headers: []))
                for answer in badRequests {
                    #expect((answer.json["error"] as? [String: Any])?["message"] as? String == "Bad Request", "\(path) \(answer.text)")
                }
                var denied: [TestResponse] = []
                for header in [nil, "", "iss_unknown", IssuerToken.generate(using: SystemRandomSource()), covidShieldToken, "Bearer \(token)"] {
                    denied.append(try await h.issuer.postRaw(path, Array(valid.utf8), headers: header.map { [("api-token", $0)] } ?? []))
                }
                // An issuer's token as CovidShield sends it is no api-token.
                denied.append(try await h.issuer.postRaw(path, Array(valid.utf8), headers: [("Authorization", "Bearer \(token)")]))
                for answer in denied {
                    #expect((answer.json["error"] as? [String: Any])?["message"] as? String == "Permission denied.", "\(path) \(answer.text)")
                }
                if path == "/generateCode" {
                    Covers.status(400, of: "POST /generateCode", among: badRequests.map { $0.as(.firebaseCallable) }, error: "INVALID_ARGUMENT")
                    Covers.status(403, of: "POST /generateCode", among: denied.map { $0.as(.firebaseCallable) }, error: "PERMISSION_DENIED")
                } else {
                    Covers.status(400, of: "POST /generateCodesBatch", among: badRequests.map { $0.as(.firebaseCallable) }, error: "INVALID_ARGUMENT")
                    Covers.status(403, of: "POST /generateCodesBatch", among: denied.map { $0.as(.firebaseCallable) }, error: "PERMISSION_DENIED")
                }
            }
            #expect(try await h.rows("one_time_codes") == 0)

            try await FailureInjection.fail(.insert, on: "one_time_codes", onceTableHolds: 1, in: h.database)
            #expect(try await h.callable("/generateCode", #"{"data":{}}"#, token: token).status == 200)
            let single = try await h.callable("/generateCode", #"{"data":{}}"#, token: token)
            Covers.status(500, of: "POST /generateCode", single.as(.firebaseCallable), error: "INTERNAL")
            let failedBatch = try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":5,"duration":3600}}"#, token: token)
            Covers.status(500, of: "POST /generateCodesBatch", failedBatch.as(.firebaseCallable), error: "INTERNAL")
            #expect((failedBatch.json["error"] as? [String: Any])?["message"] as? String == "INTERNAL")
            try await FailureInjection.remove(from: "one_time_codes", in: h.database)
            #expect(try await h.rows("one_time_codes") == 1)
        }
    }

    /// `generateCodesBatch`: 1 to 1,000 PINs, all different, living `duration` (1800 or whole hours to 24).
    @Test(arguments: TestDatabase.all)
    func generateCodesBatchIssuesUpToAThousandPINsForTheirDuration(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.addIssuer("gis-pl", kind: "protego", region: "PL-MZ")
            let answer = try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":1000,"duration":86400}}"#, token: token)
            Covers.status(200, of: "POST /generateCodesBatch", answer.as(.firebaseCallable))
            let pins = try #require(answer.json["result"] as? [String])
            #expect(pins.count == 1000 && Set(pins).count == 1000)
            #expect(pins.allSatisfy(OneTimeCodeKind.proteGO.isWellFormed))
            #expect(try await h.rows("one_time_codes") == 1000)
            h.clock.advance(by: 86399)
            let redeemed = try await h.redeemCode("PROTEGO", pins[0])
            #expect(redeemed.status == 200 && redeemed.json["region"] as? String == "PL-MZ")
            h.clock.advance(by: 1)
            #expect(try await h.redeemCode("PROTEGO", pins[1]).status == 404)

            let short = try #require(try await h.callable("/generateCodesBatch", #"{"data":{"duration":1800,"numberOfCodes":1.0}}"#, token: token).json["result"] as? [String])
            #expect(short.count == 1)
            h.clock.advance(by: 1800)
            #expect(try await h.redeemCode("PROTEGO", short[0]).status == 404)
        }
    }

    @Test(arguments: TestDatabase.all)
    func generateCodesBatchRefusesInvalidArgumentsWithTheReferencesMessages(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.addIssuer("gis-pl", kind: "protego")
            let numberOfCodes = "Parameter numberOfCodes accepts numbers in range 1-1000."
            let duration = "Parameter duration accepts only numbers: 1800, 3600, 7200, 10800, ..., 86400."
            var refused: [TestResponse] = []
            for (data, message) in [
                (#"{"duration":1800}"#, numberOfCodes), (#"{"numberOfCodes":0,"duration":1800}"#, numberOfCodes),
                (#"{"numberOfCodes":1001,"duration":1800}"#, numberOfCodes), (#"{"numberOfCodes":-1,"duration":1800}"#, numberOfCodes),
                (#"{"numberOfCodes":1.5,"duration":1800}"#, numberOfCodes), (#"{"numberOfCodes":"5","duration":1800}"#, numberOfCodes),
                (#"{"numberOfCodes":true,"duration":1800}"#, numberOfCodes), ("null", numberOfCodes), ("[5, 1800]", numberOfCodes),
                (#"{"numberOfCodes":5}"#, duration), (#"{"numberOfCodes":5,"duration":0}"#, duration),
                (#"{"numberOfCodes":5,"duration":900}"#, duration), (#"{"numberOfCodes":5,"duration":5400}"#, duration),
                (#"{"numberOfCodes":5,"duration":90000}"#, duration), (#"{"numberOfCodes":5,"duration":"3600"}"#, duration),
                (#"{"numberOfCodes":5,"duration":-3600}"#, duration),
            ] {
                let answer = try await h.callable("/generateCodesBatch", #"{"data":\#(data)}"#, token: token)
                #expect((answer.json["error"] as? [String: Any])?["message"] as? String == message, "\(data): \(answer.text)")
                refused.append(answer)
            }
            Covers.status(400, of: "POST /generateCodesBatch", among: refused.map { $0.as(.firebaseCallable) }, error: "INVALID_ARGUMENT")
            #expect(try await h.rows("one_time_codes") == 0)
        }
    }

    /// The listener's address: its own port (8013 unless `ISSUER_PORT`), on the internal bind host.
    @Test func theIssuerListenerBindsTheInternalHost() throws {
        let defaults = try VerificationConfiguration(Settings(arguments: ["test"], environment: VerificationHarness.baseSettings))
        #expect(defaults.issuerListener == ListenerAddress(host: "127.0.0.1", port: 8013))
        #expect(defaults.issuerListener.port != defaults.common.managementListener.port)
        let moved = try VerificationConfiguration(Settings(arguments: ["test"], environment: VerificationHarness.baseSettings.merging([
            "ISSUER_PORT": "9013", "INTERNAL_BIND_HOST": "10.0.0.5", "BIND_HOST": "0.0.0.0",
        ]) { $1 }))
        #expect(moved.issuerListener == ListenerAddress(host: "10.0.0.5", port: 9013))
    }
}

extension VerificationHarness {
    /// `POST /new-key-claim` with a CovidShield issuer's token, as the reference's examples send it.
    func newKeyClaim(token: String) async throws -> TestResponse {
        try await issuer.request(.POST, IssuerTests.newKeyClaim, headers: [("Authorization", "Bearer \(token)")])
    }

    /// A callable function called as a ProteGO issuer's system calls it: the body as given, the token in `api-token`.
    func callable(_ path: String, _ body: String, token: String) async throws -> TestResponse {
        try await issuer.postRaw(path, Array(body.utf8), headers: [("api-token", token)])
    }
}
