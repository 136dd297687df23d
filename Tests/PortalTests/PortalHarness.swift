import ExposureCore
import ExposureTestSupport
import Foundation
import JWTKit
@testable import Portal
@testable import Verification

/// The real verification service and the portal on free ports, sharing one manual clock, with verification
/// trusting the portal's generated signing key (and, for OIDC tests, the test provider's key) exactly as the
/// suite wires them: through `JWT_PUBLIC_KEY_FILES`.
struct PortalHarness {
    static let password = "correct horse battery"
    static let healthAuthorities = "1.08.2.12.=Gesundheitsamt Heidelberg,1.11.0.01.=Gesundheitsamt Berlin-Mitte"

    let portalPort: Int
    /// The portal's management listener (`/metrics`, `/health/ready`).
    let management: TestHTTPClient
    /// Verification's app-facing listener, where phones register teleTANs.
    let app: TestHTTPClient
    let clock: ManualClock
    let database: Database
    let dataDirectory: URL

    static func run(
        on kind: TestDatabase,
        portal extraPortal: [String: String] = [:],
        verification extraVerification: [String: String] = [:],
        oidc: TestOIDCProvider? = nil,
        proxy: AnswerDroppingProxy? = nil,
        _ body: (PortalHarness) async throws -> Void
    ) async throws {
        Observability.bootstrapMetrics()
        let clock = oidc?.clock ?? ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("portal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        // What the launcher does: make sure the portal's key exists, and hand its public half to verification.
        // Each key with the issuer and audience of its tokens: the portal's defaults, and the provider's realm.
        var trusted = [try PortalSigningKey.loadOrCreate(in: dataDirectory.path).publicKeyFile! + "|exposuresuite-portal|exposuresuite-verification"]
        if let oidc { trusted.append(try oidc.writePublicKey(to: dataDirectory) + "|\(oidc.issuer)|\(TestOIDCProvider.verificationAudience)") }

        try await kind.withFreshDatabaseURL { verificationURL in
            try await kind.withFreshDatabaseURL { portalURL in
                var verificationVariables = [
                    "DATABASE_URL": verificationURL.connectionString, "PORT": "0", "INTERNAL_PORT": "0", "BIND_HOST": "127.0.0.1",
                    // teleTAN issuance and registration never ask test-result.
                    "TESTRESULT_URL": "http://127.0.0.1:1",
                    "JWT_PUBLIC_KEY_FILES": trusted.joined(separator: ","),
                    "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys,
                ]
                verificationVariables.merge(extraVerification) { $1 }
                let verification = try await VerificationService.makeBundle(
                    try VerificationConfiguration(TestServices.settings(verificationVariables)),
                    environment: TestServices.environment(clock: clock, seed: UInt64.random(in: 0...UInt64.max))
                )
                try await TestServices.withRunning([verification]) { verificationRunning in
                    // With `proxy`, the portal reaches verification through it.
                    let upstreamPort = await verificationRunning.bundle(VerificationService.name).port(VerificationService.internalListener)
                    try await TestServices.withRunning(proxy.map { [$0.bundle(upstreamPort: upstreamPort)] } ?? []) { proxies in
                        var internalPort = upstreamPort
                        if let proxy { internalPort = await proxies.bundle(proxy.name).port(proxy.listener) }
                        var portalVariables = [
                            "DATABASE_URL": portalURL.connectionString, "PORT": "0", "BIND_HOST": "127.0.0.1",
                            "VERIFICATION_URL": "http://127.0.0.1:\(internalPort)",
                            "DATA_DIR": dataDirectory.path,
                            "BCRYPT_COST": "4",
                            "HEALTH_AUTHORITIES": healthAuthorities,
                        ]
                        if let oidc {
                            portalVariables.merge(["OIDC_ISSUER": oidc.issuer, "OIDC_CLIENT_ID": oidc.clientID, "OIDC_CLIENT_SECRET": oidc.clientSecret]) { $1 }
                        }
                        portalVariables.merge(extraPortal) { $1 }
                        let portal = try await PortalService.makeBundle(
                            try PortalConfiguration(TestServices.settings(portalVariables)),
                            environment: TestServices.environment(clock: clock, seed: UInt64.random(in: 0...UInt64.max))
                        )
                        let database = try await Database.connect(portalURL, poolSize: 2, logger: TestLogger.quiet)
                        do {
                            try await TestServices.withRunning([portal]) { portalRunning in
                                let harness = PortalHarness(
                                    portalPort: await portalRunning.bundle(PortalService.name).port(PortalService.listenerName),
                                    management: await TestServices.management(portalRunning, PortalService.name),
                                    app: await TestServices.client(verificationRunning, VerificationService.name, VerificationService.appListener),
                                    clock: clock,
                                    database: database,
                                    dataDirectory: dataDirectory
                                )
                                try await body(harness)
                            }
                            await database.shutdown()
                        } catch {
                            await database.shutdown()
                            throw error
                        }
                    }
                }
            }
        }
    }

    func browser(language: String? = nil) -> PortalBrowser {
        PortalBrowser(port: portalPort, acceptLanguage: language)
    }

    /// `portal-service users …` against the portal's database, with `password` as standard input.
    @discardableResult
    func users(_ words: [String], password: String? = PortalHarness.password) async throws -> String {
        try await PortalAdmin.users(words, database: database, cost: 4, environment: TestServices.environment(clock: clock), password: { password })
    }

    /// `portal-service audit …` against the portal's database.
    func audit(_ words: [String]) async throws -> String {
        try await PortalAdmin.audit(words, database: database)
    }

    func addOfficer(_ name: String, roles: String = "c19hotline,c19hotline_event") async throws {
        try await users(["add", name, "--roles", roles])
    }

    /// A signed-in browser of a new officer.
    func signedIn(_ name: String, roles: String = "c19hotline,c19hotline_event", language: String? = nil) async throws -> PortalBrowser {
        try await addOfficer(name, roles: roles)
        let browser = browser(language: language)
        let response = try await browser.signIn(name, Self.password)
        precondition(response.status == 303, "sign-in failed: \(response.status) \(response.text)")
        return browser
    }

    /// Registers a teleTAN at verification's app-facing API, as a phone does.
    func register(teleTAN: String) async throws -> TestResponse {
        try await app.postJSON("/version/v1/registrationToken", ["key": teleTAN, "keyType": "TELETAN"], headers: [("cwa-fake", "0")])
    }

    func rows(_ table: String) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()!.decode(column: "n", as: Int.self)
        }
    }

    func auditRows() async throws -> [[String: String]] {
        try await database.withConnection { connection in
            try await connection.raw("SELECT officer, teletan_type, health_authority, outcome FROM portal_audit_log ORDER BY id").all().map { row in
                var values: [String: String] = [:]
                for column in row.allColumns { values[column] = try? row.decode(column: column, as: String.self) }
                return values
            }
        }
    }
}
