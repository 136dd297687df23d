import AsyncHTTPClient
import Crypto
import ExposureCore
import ExposureStack
import ExposureTestSupport
import Foundation
import JWTKit
import SQLKit
import Testing
@testable import TestResult
@testable import Verification
@testable import VerificationDomain

/// The real test-result service and the verification service on free ports, wired over HTTP, with an officer
/// signing key that verification trusts and a registered lab.
struct VerificationHarness {
    let app: TestHTTPClient
    let `internal`: TestHTTPClient
    /// The issuer listener, as health-authority systems call it.
    let issuer: TestHTTPClient
    let management: TestHTTPClient
    let lab: TestHTTPClient
    let labKey: String
    let clock: ManualClock
    let database: Database
    let officerKey: ES256PrivateKey
    /// Verification's settings, for another instance on the same database (`withAnotherVerification`).
    let variables: [String: String]
    /// The hourly counts this test's services published (the gauges are shared with every other test).
    let hours: PublishedHours

    /// The issuer and audience verification expects of the harness's officer key.
    static let officerIssuer = "https://portal.test"
    /// A second identity provider verification trusts (with the same key, for brevity): its subjects are other people.
    static let secondOfficerIssuer = "https://second-idp.test"
    static let officerAudience = "verification"

    /// What a verification configuration needs besides its defaults.
    static let baseSettings = ["TELETAN_HASH_KEYS": TestServices.teleTANHashKeys]

    static func run(
        on kind: TestDatabase,
        environment extra: [String: String] = [:],
        testResultDown: Bool = false,
        _ body: (VerificationHarness) async throws -> Void
    ) async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        let officerKey = ES256PrivateKey()
        let keyDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("officer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keyDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keyDirectory) }
        let publicKeyFile = keyDirectory.appendingPathComponent("officer.pem").path
        try officerKey.publicKey.pemRepresentation.write(toFile: publicKeyFile, atomically: true, encoding: .utf8)

        let hours = PublishedHours()
        try await TestStack.withRunning([.testResult, .verification], on: kind, clock: clock, hours: hours) { plan in
            plan.trustedOfficerKeys = [
                "\(publicKeyFile)|\(officerIssuer)|\(officerAudience)", "\(publicKeyFile)|\(secondOfficerIssuer)|\(officerAudience)",
            ]
            if testResultDown { plan.reroute[.testResult] = { _ in "http://127.0.0.1:1" } }
            plan.set(.verification, baseSettings.merging(["TESTRESULT_TIMEOUT": "2s"]) { $1 })
            plan.set(.verification, extra)
        } _: { stack in
            let labKey = try await stack.addLab("lab-1", clock: clock)
            let database = try await stack.connect(.verification)
            do {
                try await body(VerificationHarness(
                    app: stack.client(.verification, VerificationService.appListener),
                    internal: stack.client(.verification, VerificationService.internalListener),
                    issuer: stack.client(.verification, VerificationService.issuerListener),
                    management: stack.management(.verification),
                    lab: stack.client(.testResult, TestResultService.labListener),
                    labKey: labKey,
                    clock: clock,
                    database: database,
                    officerKey: officerKey,
                    variables: stack.variables[.verification] ?? [:],
                    hours: hours
                ))
                await database.shutdown()
            } catch {
                await database.shutdown()
                throw error
            }
        }
    }

    /// Runs `body` with a second verification instance on the same database and test-result service, configured with
    /// `extra` on top of this one's settings: a replica, or this one restarted with other settings.
    func withAnotherVerification(environment extra: [String: String], _ body: (VerificationHarness) async throws -> Void) async throws {
        let configuration = try VerificationConfiguration(TestServices.settings(variables.merging(extra) { $1 }))
        var environment = TestServices.environment(clock: clock, seed: UInt64.random(in: 0...UInt64.max))
        environment.publishHour = hours.publisher(for: .verification)
        let other = try await VerificationService.makeBundle(configuration, environment: environment)
        try await TestServices.withRunning([other]) { running in
            try await body(VerificationHarness(
                app: await TestServices.client(running, VerificationService.name, VerificationService.appListener),
                internal: await TestServices.client(running, VerificationService.name, VerificationService.internalListener),
                issuer: await TestServices.client(running, VerificationService.name, VerificationService.issuerListener),
                management: await TestServices.management(running, VerificationService.name),
                lab: lab, labKey: labKey, clock: clock, database: database, officerKey: officerKey,
                variables: variables.merging(extra) { $1 }, hours: hours
            ))
        }
    }

    /// The same services through `http` (say, a client with fifty connections for a race: `withManyConnections`).
    func using(_ http: HTTPClient) -> VerificationHarness {
        VerificationHarness(
            app: app.using(http), internal: self.internal.using(http), issuer: issuer.using(http), management: management, lab: lab.using(http), labKey: labKey,
            clock: clock, database: database, officerKey: officerKey, variables: variables, hours: hours
        )
    }

    /// Runs `body` with fifty requests really in flight at once: through a client of fifty connections, all released
    /// together (`concurrently`).
    func race<T: Sendable>(_ body: @escaping @Sendable (VerificationHarness) async throws -> T) async throws -> [T] {
        try await withManyConnections(50) { http in
            let racing = using(http)
            return try await concurrently(50) { try await body(racing) }
        }
    }

    // MARK: Calls as the apps, labs and portal make them

    static func hashedGUID(_ n: Int = Int.random(in: 0..<Int.max)) -> String { SecretHash.sha256Hex("guid-\(n)") }

    func register(guid: String, dob: String? = nil, fake: String = "0") async throws -> TestResponse {
        var body = ["key": guid, "keyType": "GUID"]
        if let dob { body["keyDob"] = dob }
        return try await app.postJSON("/version/v1/registrationToken", body, headers: [("cwa-fake", fake)])
    }

    func register(teleTAN: String, fake: String = "0") async throws -> TestResponse {
        try await app.postJSON("/version/v1/registrationToken", ["key": teleTAN, "keyType": "TELETAN"], headers: [("cwa-fake", fake)])
    }

    func testResult(_ token: String, fake: String = "0") async throws -> TestResponse {
        try await app.postJSON("/version/v1/testresult", ["registrationToken": token], headers: [("cwa-fake", fake)])
    }

    func tan(_ token: String, fake: String = "0") async throws -> TestResponse {
        try await app.postJSON("/version/v1/tan", ["registrationToken": token], headers: [("cwa-fake", fake)])
    }

    func verify(_ tan: String, redemptionKey: String? = nil) async throws -> TestResponse {
        try await self.internal.postJSON("/version/v1/tan/verify", ["tan": tan, "redemptionKey": redemptionKey].compactMapValues { $0 })
    }

    func labPosts(_ id: String, result: Int, quick: Bool = false) async throws {
        let response = try await lab.postJSON(
            quick ? "/api/v1/quicktest/results" : "/api/v1/lab/results",
            ["testResults": [["id": id, "result": result]]],
            headers: [("Authorization", "Bearer \(labKey)")]
        )
        precondition(response.status == 204, "lab upload failed: \(response.status) \(response.text)")
    }

    /// A signed officer token (ES256) with the given roles, by default of the issuer and for the audience verification
    /// expects of the harness's key.
    func officerToken(
        roles: [String], expiresIn: TimeInterval = 300, key: ES256PrivateKey? = nil, subject: String? = "officer-1",
        issuer: String? = VerificationHarness.officerIssuer, audience: [String]? = [VerificationHarness.officerAudience], authority: String? = nil
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key ?? officerKey)
        let claims = OfficerClaims(
            exp: ExpirationClaim(value: clock.now().addingTimeInterval(expiresIn)),
            iss: issuer.map { IssuerClaim(value: $0) }, aud: audience.map { AudienceClaim(value: $0) },
            sub: subject.map { SubjectClaim(value: $0) }, realm_access: .init(roles: roles), authority: authority
        )
        return try await keys.sign(claims)
    }

    func createTeleTAN(token: String?, type: String? = nil, idempotencyKey: String? = nil) async throws -> TestResponse {
        var headers: [(String, String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let type { headers.append(("X-CWA-TELETAN-TYPE", type)) }
        if let idempotencyKey { headers.append(("Idempotency-Key", idempotencyKey)) }
        return try await self.internal.request(.POST, "/version/v1/tan/teletan", headers: headers)
    }

    /// Asks for a one-time code of `kind` (`COVIDSHIELD`, `PROTEGO`) as the portal does, with an officer's token.
    func issueCode(_ kind: String, token: String?, region: String? = nil) async throws -> TestResponse {
        var body: [String: Any] = ["kind": kind]
        if let region { body["region"] = region }
        return try await self.internal.postJSON("/version/v1/codes", body, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    /// A new code of `kind` from an officer with the hotline role.
    func newCode(_ kind: String) async throws -> String {
        let response = try await issueCode(kind, token: try await officerToken(roles: ["c19hotline"]))
        precondition(response.status == 201, "code issuance failed: \(response.status) \(response.text)")
        return response.json["code"] as! String
    }

    /// `verification-service issuers …` against this verification's database, as an operator runs it.
    func issuers(_ words: [String]) async throws -> String {
        let configuration = try VerificationConfiguration(TestServices.settings(variables))
        return try await VerificationAdmin.issuers(words, configuration: configuration, environment: TestServices.environment(clock: clock, seed: UInt64.random(in: 0...UInt64.max)))
    }

    /// `verification-service authorities …` against this verification's database, as an operator runs it.
    func authorities(_ words: [String]) async throws -> String {
        let configuration = try VerificationConfiguration(TestServices.settings(variables))
        return try await VerificationAdmin.authorities(words, configuration: configuration, environment: TestServices.environment(clock: clock, seed: UInt64.random(in: 0...UInt64.max)))
    }

    /// Adds a health authority with `authorities add` (every family, every region, no limits unless given).
    func addAuthority(
        _ id: String, families: String? = nil, regions: String? = nil, perHour: Int? = nil, perDay: Int? = nil, codesPerIssuerKeyHour: Int? = nil
    ) async throws {
        var words = ["add", "--id", id, "--name", "Authority \(id)"]
        if let families { words += ["--families", families] }
        if let regions { words += ["--regions", regions] }
        if let perHour { words += ["--per-hour", String(perHour)] }
        if let perDay { words += ["--per-day", String(perDay)] }
        if let codesPerIssuerKeyHour { words += ["--issuer-codes-per-hour", String(codesPerIssuerKeyHour)] }
        _ = try await authorities(words)
    }

    /// Adds an issuer with `issuers add` and answers its token (the line of the output that holds it).
    func addIssuer(_ name: String, kind: String, region: String? = nil, authority: String? = nil) async throws -> String {
        let output = try await issuers(
            ["add", "--name", name, "--kind", kind] + (region.map { ["--region", $0] } ?? []) + (authority.map { ["--authority", $0] } ?? [])
        )
        let token = output.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix(IssuerToken.prefix) }
        return String(try #require(token))
    }

    /// Redeems a code as the submission service's adapters do; with `origin`, for the phone whose keyed hashes of
    /// address and network it names (`GuessOrigin`), without one for one unknown phone.
    func redeemCode(_ kind: String, _ code: String, origin: (source: String, network: String)? = nil) async throws -> TestResponse {
        var body: [String: Any] = ["kind": kind, "code": code]
        if let origin { body["origin"] = ["source": origin.source, "network": origin.network] }
        return try await self.internal.postJSON("/version/v1/codes/redeem", body)
    }

    /// A `GuessOrigin` for phone `phone` of network `network`, as the submission service would hash them.
    static func origin(phone: Int, network: Int) -> (source: String, network: String) {
        (String(SecretHash.sha256Hex("phone-\(phone)").prefix(32)), String(SecretHash.sha256Hex("network-\(network)").prefix(32)))
    }

    /// The `teletans` rows: hash, sealed teleTAN and request key hash of each.
    func teleTANRows() async throws -> [(hash: String, sealed: String?, requestKeyHash: String?)] {
        try await database.withConnection { connection in
            try await connection.raw("SELECT teletan_hash, sealed_teletan, request_key_hash FROM teletans").all().map { row in
                (
                    try row.decode(column: "teletan_hash", as: String.self),
                    try row.decode(column: "sealed_teletan", as: String?.self),
                    try row.decode(column: "request_key_hash", as: String?.self)
                )
            }
        }
    }

    /// The issuance counter of `scope` in the current window.
    func issuanceCount(scope: String) async throws -> Int {
        let windowStart = TeleTANRateLimit(window: .seconds(3600)).windowStart(now: clock.now())
        return try await database.withConnection { connection in
            try await connection.raw("""
                SELECT issued FROM teletan_issuance_counts WHERE scope = \(bind: scope) AND window_start = \(bind: windowStart)
                """).first()?.decode(column: "issued", as: Int.self) ?? 0
        }
    }

    /// The key id of each `teletans` row.
    func teleTANKeyIDs() async throws -> [String] {
        try await database.withConnection { connection in
            try await connection.raw("SELECT hash_key_id FROM teletans").all().map { try $0.decode(column: "hash_key_id", as: String.self) }
        }
    }

    func newTeleTAN(type: String = "TEST") async throws -> String {
        let role = type == "EVENT" ? "c19hotline_event" : "c19hotline"
        let response = try await createTeleTAN(token: try await officerToken(roles: [role]), type: type)
        precondition(response.status == 201, "teleTAN issuance failed: \(response.status) \(response.text)")
        return response.json["value"] as! String
    }

    /// A registration token for a GUID whose lab result is `result`.
    func registeredToken(result: Int?, quick: Bool = false) async throws -> String {
        let guid = Self.hashedGUID()
        if let result { try await labPosts(guid, result: result, quick: quick) }
        let response = try await register(guid: guid)
        precondition(response.status == 201)
        return response.json["registrationToken"] as! String
    }

    /// TANs the database holds as spent.
    func redeemedTANs() async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM tans WHERE redeemed_at IS NOT NULL").first()!.decode(column: "n", as: Int.self)
        }
    }

    func rows(_ table: String) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()!.decode(column: "n", as: Int.self)
        }
    }
}
