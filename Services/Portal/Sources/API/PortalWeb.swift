import ExposureCore
import Foundation
import Hummingbird
import Logging
import Metrics
import PortalDomain

/// The portal's pages and forms, with everything they need. Route groups live in extensions:
/// `+Login` (local accounts, sign-out), `+OIDC`, `+TeleTAN` (start page, teleTANs and the other families' codes),
/// `+Password` (an officer's own password), `+TwoFactor` (TOTP set-up and the code after the password), `+Officers`
/// (administration by supervisors), `+Authorities` (health authorities, for system administrators), `+Maintenance`
/// (their switch), `+IssuerKeys` (supervisors' keys for their systems), `+SigningKeys` (their authority's key for
/// verification certificates), `+LabCredentials` (the labs' keys, for system administrators), `+Codes` (code status), `+Audit` (the audit
/// page), `+Statistics` (supervisors' charts and downloads), `+Static`.
struct PortalWeb: Sendable {
    let configuration: PortalConfiguration
    let pages: PageRenderer
    let cookies: SessionCookies
    let users: UserStore
    let sessions: SessionStore
    let oidcLogins: OIDCLoginStore
    let rateLimits: OfficerRateLimitStore
    let signInAttempts: SignInAttemptStore
    let audit: AuditLog
    /// The officer administration's steps (`portal_admin_audit_log`).
    let officerAudit: OfficerAuditLog
    let twoFactor: TwoFactorStore
    /// Seals TOTP secrets and keys the recovery codes' hashes.
    let totpSealer: TOTPSecretSealer
    let hasher: PasswordHasher
    /// Local mode: signs the officer's token for verification (nil when local login is off).
    let signer: OfficerTokenSigner?
    let oidc: OIDCProvider?
    let teleTANs: TeleTANIssuer
    /// The health authorities at verification, for system administrators (`+Authorities`).
    let register: AuthorityRegister
    /// The codes officers issued, for their status (`+Codes`).
    let issuedCodes: IssuedCodeBook
    /// The authorities' issuer keys at verification, for supervisors (`+IssuerKeys`).
    let issuerKeys: IssuerKeyRegister
    /// The authorities' signing keys at verification, for supervisors and system administrators (`+SigningKeys`).
    let signingKeys: SigningKeyRegister
    /// The labs' credentials at test-result, for system administrators (`+LabCredentials`); nil without
    /// `TESTRESULT_API_TOKEN`.
    let labCredentials: LabCredentialRegister?
    /// Whether the portal is in maintenance (the setting, or a system administrator's switch in `settings`).
    let maintenance: MaintenanceState
    let settings: PortalSettingsStore
    /// The officers' authorities for the start page, kept a minute.
    let authorityCache: AuthorityCache
    /// The services' statistics, for supervisors (`+Statistics`).
    let statistics: StatisticsSources
    let assets: StaticAssets
    let clock: any WallClock
    let random: any RandomSource
    let logger: Logger
    /// Kept, not made per event: a guessing attack counts a refused sign-in per request.
    let signInCounters = MetricHandles<Counter> { values in
        Counter(label: "portal_sign_ins_total", dimensions: [("outcome", values[0])])
    }
    let teleTANCounters = MetricHandles<Counter> { values in
        Counter(label: "portal_teletan_requests_total", dimensions: [("type", values[0]), ("outcome", values[1])])
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { request, _ in try await self.startPage(request) }
        router.post("/teletan") { request, _ in try await self.issueTeleTAN(request) }
        router.post("/code") { request, _ in try await self.issueCode(request) }
        router.get("/login") { request, _ in try await self.loginPage(request) }
        router.post("/login") { request, _ in try await self.login(request) }
        router.post("/logout") { request, _ in try await self.logout(request) }
        router.get("/login/oidc") { request, _ in try await self.startOIDCLogin(request) }
        router.get("/login/oidc/callback") { request, _ in try await self.finishOIDCLogin(request) }
        router.get("/login/code") { request, _ in try await self.secondFactorPage(request) }
        router.post("/login/code") { request, _ in try await self.checkSecondFactor(request) }
        router.get("/totp") { request, _ in try await self.enrolmentPage(request) }
        router.post("/totp") { request, _ in try await self.confirmEnrolment(request) }
        router.get("/password") { request, _ in try await self.passwordPage(request) }
        router.post("/password") { request, _ in try await self.changePassword(request) }
        router.get("/officers") { request, _ in try await self.officersPage(request) }
        router.post("/officers") { request, _ in try await self.addOfficer(request) }
        router.post("/officers/disable") { request, _ in try await self.disableOfficer(request) }
        router.post("/officers/enable") { request, _ in try await self.enableOfficer(request) }
        router.post("/officers/reset-password") { request, _ in try await self.resetOfficerPassword(request) }
        router.post("/officers/roles") { request, _ in try await self.changeOfficerRoles(request) }
        router.get("/authorities") { request, _ in try await self.authoritiesPage(request) }
        router.post("/authorities") { request, _ in try await self.addAuthority(request) }
        router.post("/authorities/disable") { request, _ in try await self.disableAuthority(request) }
        router.post("/authorities/enable") { request, _ in try await self.enableAuthority(request) }
        router.post("/authorities/change") { request, _ in try await self.changeAuthority(request) }
        router.post("/authorities/supervisor") { request, _ in try await self.appointSupervisor(request) }
        router.get("/maintenance") { request, _ in try await self.maintenancePage(request) }
        router.post("/maintenance") { request, _ in try await self.switchMaintenance(request) }
        router.get("/audit") { request, _ in try await self.auditPage(request) }
        router.get("/audit.csv") { request, _ in try await self.auditDownload(request) }
        router.get("/issuers") { request, _ in try await self.issuerKeysPage(request) }
        router.post("/issuers") { request, _ in try await self.createIssuerKey(request) }
        router.post("/issuers/revoke") { request, _ in try await self.revokeIssuerKey(request) }
        router.get("/signing-keys") { request, _ in try await self.signingKeysPage(request) }
        router.post("/signing-keys") { request, _ in try await self.rotateSigningKey(request) }
        router.post("/signing-keys/retire") { request, _ in try await self.retireSigningKey(request) }
        router.get("/labs") { request, _ in try await self.labCredentialsPage(request) }
        router.post("/labs") { request, _ in try await self.createLabCredential(request) }
        router.post("/labs/revoke") { request, _ in try await self.revokeLabCredential(request) }
        router.get("/codes") { request, _ in try await self.codesPage(request) }
        router.post("/codes/expire") { request, _ in try await self.expireCode(request) }
        router.get("/language") { request, _ in try self.chooseLanguage(request) }
        router.get("/statistics") { request, _ in try await self.statisticsPage(request) }
        router.get("/statistics.csv") { request, _ in try await self.statisticsDownload(request, format: .csv) }
        router.get("/statistics.json") { request, _ in try await self.statisticsDownload(request, format: .json) }
        router.get("/static/{file}") { request, context in try self.asset(context.parameters.require("file")) }
    }
}
