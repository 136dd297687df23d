import ExposureCore
import ExposureStack
import ExposureTestSupport
import Foundation
import JWTKit
@testable import Portal
import TestResult
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
    /// Verification's internal listener, where the submission service's adapters redeem one-time codes.
    let `internal`: TestHTTPClient
    /// Verification's issuer listener, where health-authority systems issue codes with their issuer keys.
    let issuer: TestHTTPClient
    /// Test-result's lab listener, where labs post with the keys system administrators create; nil unless the
    /// harness runs test-result (`withTestResult`).
    let lab: TestHTTPClient?
    let clock: ManualClock
    let database: Database
    /// Verification's, where its register of health authorities is.
    let verificationDatabase: Database
    let dataDirectory: URL

    static func run(
        on kind: TestDatabase,
        portal extraPortal: [String: String] = [:],
        verification extraVerification: [String: String] = [:],
        oidc: TestOIDCProvider? = nil,
        proxy: AnswerDroppingProxy? = nil,
        withTestResult: Bool = false,
        _ body: (PortalHarness) async throws -> Void
    ) async throws {
        let clock = oidc?.clock ?? ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        // With `proxy`, the portal reaches verification through it.
        let proxies = proxy.map { [StackMember.verification: $0] } ?? [:]
        let members: [StackMember] = withTestResult ? [.testResult, .verification, .portal] : [.verification, .portal]
        try await TestStack.withRunning(members, on: kind, clock: clock, proxies: proxies) { plan in
            // Verification trusts the portal's key (the stack hands it over) and, for OIDC tests, the provider's realm.
            if let oidc {
                plan.trustedOfficerKeys = [
                    try oidc.writePublicKey(to: URL(fileURLWithPath: plan.dataDirectory)) + "|\(oidc.issuer)|\(TestOIDCProvider.verificationAudience)",
                ]
                plan.set(.portal, ["OIDC_ISSUER": oidc.issuer, "OIDC_CLIENT_ID": oidc.clientID, "OIDC_CLIENT_SECRET": oidc.clientSecret])
            }
            // teleTAN issuance and registration never ask test-result; the lab credentials page does.
            if !withTestResult { plan.elsewhere[.testResult] = "http://127.0.0.1:1" }
            plan.set(.verification, ["TELETAN_HASH_KEYS": TestServices.teleTANHashKeys])
            plan.set(.verification, extraVerification)
            // A loaded CI machine (every suite's stacks at once on two cores) can keep verification from answering
            // within the production default of 5 s; the tests of a slow or absent verification set their own.
            plan.set(.portal, ["BCRYPT_COST": "4", "HEALTH_AUTHORITIES": healthAuthorities, "VERIFICATION_TIMEOUT": "30s"])
            plan.set(.portal, extraPortal)
        } _: { stack in
            let database = try await stack.connect(.portal)
            let verificationDatabase = try await stack.connect(.verification)
            func shutDown() async {
                await database.shutdown()
                await verificationDatabase.shutdown()
            }
            do {
                try await body(PortalHarness(
                    portalPort: stack.port(.portal, PortalService.listenerName),
                    management: stack.management(.portal),
                    app: stack.client(.verification, VerificationService.appListener),
                    internal: stack.client(.verification, VerificationService.internalListener),
                    issuer: stack.client(.verification, VerificationService.issuerListener),
                    lab: withTestResult ? stack.client(.testResult, TestResultService.labListener) : nil,
                    clock: clock,
                    database: database,
                    verificationDatabase: verificationDatabase,
                    dataDirectory: URL(fileURLWithPath: stack.plan.dataDirectory)
                ))
                await shutDown()
            } catch {
                await shutDown()
                throw error
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

    /// `authority`: the officer's health authority (`default` when nil).
    func addOfficer(_ name: String, roles: String = "c19hotline,c19hotline_event", authority: String? = nil) async throws {
        try await users(["add", name, "--roles", roles] + (authority.map { ["--authority", $0] } ?? []))
    }

    /// A signed-in browser of a new officer.
    func signedIn(
        _ name: String, roles: String = "c19hotline,c19hotline_event", language: String? = nil, authority: String? = nil
    ) async throws -> PortalBrowser {
        try await addOfficer(name, roles: roles, authority: authority)
        let browser = browser(language: language)
        let response = try await browser.signIn(name, Self.password)
        precondition(response.status == 303, "sign-in failed: \(response.status) \(response.text)")
        return browser
    }

    /// Registers a teleTAN at verification's app-facing API, as a phone does.
    func register(teleTAN: String) async throws -> TestResponse {
        try await app.postJSON("/version/v1/registrationToken", ["key": teleTAN, "keyType": "TELETAN"], headers: [("cwa-fake", "0")])
    }

    /// Redeems a one-time code at verification, as the submission service's adapters do.
    func redeem(_ kind: String, code: String) async throws -> TestResponse {
        try await self.internal.postJSON("/version/v1/codes/redeem", ["kind": kind, "code": code])
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
