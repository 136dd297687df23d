import ExposureCore
import Foundation
import PortalDomain

/// Everything the portal reads from its environment (see docs/operations.md).
public struct PortalConfiguration: Sendable {
    /// `MANAGEMENT_PORT` when unset; the all-in-one suite's `healthcheck` asks it too.
    public static let defaultManagementPort = 8042

    public var common: CommonSettings
    /// The officers' listener (`PORT`, default 8040).
    public var listener: ListenerAddress
    /// The address officers type into their browser (`PUBLIC_URL`); the OIDC redirect URL is derived from it.
    public var publicURL: URL
    /// The verification service's internal listener (`VERIFICATION_URL`).
    public var verificationURL: URL
    /// The portal's token at verification's internal listener (`VERIFICATION_API_TOKEN`, required to serve).
    public var verificationToken: String?
    public var verificationPolicy: DownstreamPolicy
    /// The test-result service's internal listener (`TESTRESULT_URL`, default `http://localhost:8021`), where system
    /// administrators administer the labs' credentials.
    public var testResultURL: URL
    /// The portal's token there (`TESTRESULT_API_TOKEN`); without it the lab credentials page says they are
    /// administered with `testresult-service labs`. Calls use `VERIFICATION_TIMEOUT` and `VERIFICATION_ATTEMPTS`.
    public var testResultToken: String?
    /// The PEM P-256 private key signing officers' tokens (`PORTAL_SIGNING_KEY_FILE`, required to serve).
    public var signingKeyFile: String?
    /// The `iss` of the portal's own officer tokens (`PORTAL_TOKEN_ISSUER`).
    public var tokenIssuer: String
    /// The `aud` of the portal's own officer tokens (`PORTAL_TOKEN_AUDIENCE`): what verification expects of the
    /// portal's key.
    public var tokenAudience: String
    /// How long a portal-signed officer token is valid (`PORTAL_TOKEN_LIFETIME`, default 60 s): one call.
    public var tokenLifetime: Duration
    /// Absolute session lifetime (`SESSION_TIMEOUT`, default 4 h).
    public var sessionTimeout: Duration
    /// How long verification keeps teleTANs valid, to tell the officer (`TELETAN_TEST_VALIDITY`, default 1 h;
    /// `TELETAN_EVENT_VALIDITY`, default 2 days): the same variables verification reads, so one environment
    /// serves both.
    public var teleTANTestValidity: Duration
    public var teleTANEventValidity: Duration
    /// How long a teleTAN stays on screen (`TELETAN_DISPLAY_TIME`, default 10 min).
    public var teleTANDisplayTime: Duration
    /// Minimum time between two teleTANs of one officer (`OFFICER_TELETAN_INTERVAL`, default 30 s).
    public var officerInterval: Duration
    /// bcrypt cost of new password hashes (`BCRYPT_COST`, default 12).
    public var bcryptCost: Int
    /// Mark cookies `Secure` (`COOKIE_SECURE`, default: true when `PUBLIC_URL` is https).
    public var cookieSecure: Bool
    /// Host names (without port) the portal answers to (`ALLOWED_HOSTS`, plus the host of `PUBLIC_URL`).
    public var allowedHosts: Set<String>
    /// Whether a reverse proxy in front may set `X-Forwarded-Host` (`TRUSTED_PROXY`, default false).
    public var trustedProxy: Bool
    /// Health authorities an EVENT teleTAN may be issued for (`HEALTH_AUTHORITIES`).
    public var healthAuthorities: [HealthAuthority]
    /// The one-time codes of other app families the start page offers beside teleTANs (`ONE_TIME_CODE_KINDS`:
    /// `covidshield`, `protego`; default none).
    public var codeKinds: [FamilyCodeKind]
    /// Whether officers may sign in with local accounts (`LOCAL_LOGIN`, default true).
    public var localLogin: Bool
    /// OpenID Connect login, when `OIDC_ISSUER`, `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET` are set.
    public var oidc: OIDCSettings?
    /// Sign-in attempts per user name and window (`LOGIN_ATTEMPTS`, default 5; `LOGIN_ATTEMPT_WINDOW`, default 15 min).
    public var signInThrottle: SignInThrottle
    /// How often expired sessions and login attempts are removed (`CLEANUP_INTERVAL`, default 15 min).
    public var cleanupInterval: Duration
    /// Whether officers without the supervisor role must set up two-factor sign-in too (`TOTP_REQUIRED_FOR_OFFICERS`,
    /// default false; supervisors always must).
    public var totpRequiredForOfficers: Bool
    /// The AES-256-GCM key sealing TOTP secrets (`TOTP_ENCRYPTION_KEY`, 64 hex digits; required to serve while
    /// `LOCAL_LOGIN` is on).
    public var totpEncryptionKey: [UInt8]?
    /// Maintenance (`MAINTENANCE_MODE`, default false): every page shows a banner and no teleTAN or code is issued
    /// (503 page); sign-in, the administration and the statistics work. Apps are not affected.
    public var maintenance: Bool
    /// The services' statistics the statistics page shows (`STATISTICS_API_TOKEN`, `VERIFICATION_STATISTICS_URL`).
    public var statistics: PortalStatisticsSettings

    public init(_ settings: Settings) throws(ConfigurationError) {
        common = try Self.commonSettings(settings)
        listener = ListenerAddress(host: common.bindHost, port: try settings.port("PORT", default: 8040))
        publicURL = try settings.url("PUBLIC_URL", default: "http://localhost:8040")
        verificationURL = try settings.url("VERIFICATION_URL", default: "http://localhost:8011")
        statistics = try PortalStatisticsSettings(settings)
        verificationToken = try ServiceTokens.callerToken(settings, variable: "VERIFICATION_API_TOKEN")
        testResultURL = try settings.url("TESTRESULT_URL", default: "http://localhost:8021")
        testResultToken = try ServiceTokens.callerToken(settings, variable: "TESTRESULT_API_TOKEN")
        verificationPolicy = DownstreamPolicy(
            timeout: try settings.duration("VERIFICATION_TIMEOUT", default: .seconds(5), minimum: .milliseconds(10)),
            // A retry only follows a failed connection or a proxy's 502/503/504, never an answer of verification itself.
            attempts: try settings.int("VERIFICATION_ATTEMPTS", default: 2, in: 1...10)
        )
        signingKeyFile = try settings.file("PORTAL_SIGNING_KEY_FILE", holds: .secret)
        tokenIssuer = try settings.string("PORTAL_TOKEN_ISSUER", default: "exposuresuite-portal")
        tokenAudience = try settings.string("PORTAL_TOKEN_AUDIENCE", default: "exposuresuite-verification")
        tokenLifetime = try settings.duration("PORTAL_TOKEN_LIFETIME", default: .seconds(60), minimum: .seconds(5))
        sessionTimeout = try settings.duration("SESSION_TIMEOUT", default: .seconds(4 * 3600), minimum: .seconds(60))
        teleTANTestValidity = try settings.duration("TELETAN_TEST_VALIDITY", default: .seconds(3600), minimum: .seconds(60))
        teleTANEventValidity = try settings.duration("TELETAN_EVENT_VALIDITY", default: .seconds(2 * 86400), minimum: .seconds(60))
        teleTANDisplayTime = try settings.duration("TELETAN_DISPLAY_TIME", default: .seconds(600), minimum: .seconds(10))
        officerInterval = try settings.duration("OFFICER_TELETAN_INTERVAL", default: .seconds(30), minimum: .zero)
        bcryptCost = try settings.int("BCRYPT_COST", default: 12, in: 4...31)
        cookieSecure = try settings.bool("COOKIE_SECURE", default: publicURL.scheme?.lowercased() == "https")
        var hosts = Set(try settings.list("ALLOWED_HOSTS", default: ["localhost", "127.0.0.1"]).map { $0.lowercased() })
        if let host = publicURL.host?.lowercased() { hosts.insert(host) }
        allowedHosts = hosts
        trustedProxy = try settings.bool("TRUSTED_PROXY", default: false)
        healthAuthorities = try HealthAuthority.parseList(try settings.list("HEALTH_AUTHORITIES", default: []))
        codeKinds = try FamilyCodeKind.parseList(try settings.list("ONE_TIME_CODE_KINDS", default: []), variable: "ONE_TIME_CODE_KINDS")
        localLogin = try settings.bool("LOCAL_LOGIN", default: true)
        oidc = try OIDCSettings(settings, publicURL: publicURL)
        guard localLogin || oidc != nil else {
            throw ConfigurationError(variable: "LOCAL_LOGIN", reason: "is false, but OIDC is not configured: nobody could sign in")
        }
        signInThrottle = SignInThrottle(
            attempts: try settings.int("LOGIN_ATTEMPTS", default: 5, in: 1...1000),
            window: try settings.duration("LOGIN_ATTEMPT_WINDOW", default: .seconds(900), minimum: .seconds(1))
        )
        cleanupInterval = try settings.duration("CLEANUP_INTERVAL", default: .seconds(900), minimum: .seconds(1))
        totpRequiredForOfficers = try settings.bool("TOTP_REQUIRED_FOR_OFFICERS", default: false)
        maintenance = try settings.bool("MAINTENANCE_MODE", default: false)
        totpEncryptionKey = try settings.hexKey("TOTP_ENCRYPTION_KEY", bytes: TOTPSecretSealer.keyBytes...TOTPSecretSealer.keyBytes)
    }
}

/// The OpenID Connect client registration of the portal.
public struct OIDCSettings: Sendable {
    /// The issuer (`OIDC_ISSUER`), e.g. `https://keycloak.example/realms/cwa`; discovery is read from
    /// `<issuer>/.well-known/openid-configuration`.
    public var issuer: URL
    public var clientID: String
    public var clientSecret: String
    /// Requested scopes (`OIDC_SCOPES`, default `openid profile`).
    public var scopes: [String]
    /// The button label on the login page (`OIDC_PROVIDER_NAME`, default `single sign-on`).
    public var providerName: String
    /// Where the provider sends the browser back: `<PUBLIC_URL>/login/oidc/callback`.
    public var redirectURL: URL
    /// How long one request to the provider may take (`OIDC_TIMEOUT`, default 10s).
    public var timeout: Duration
    /// The claim that names the officer's health authority (`OIDC_AUTHORITY_CLAIM`, with `OIDC_AUTHORITY_PREFIX`);
    /// nil: every account of the provider belongs to the authority `default` (an installation with one authority).
    public var authorityClaim: AuthorityClaim?

    /// Nil when `OIDC_ISSUER` is not set; an error when it is set without the client credentials.
    init?(_ settings: Settings, publicURL: URL) throws(ConfigurationError) {
        guard try settings.optionalString("OIDC_ISSUER") != nil else { return nil }
        issuer = try settings.url("OIDC_ISSUER", default: "")
        clientID = try settings.requiredString("OIDC_CLIENT_ID")
        clientSecret = try settings.requiredString("OIDC_CLIENT_SECRET")
        scopes = try settings.string("OIDC_SCOPES", default: "openid profile").split(separator: " ").map(String.init)
        if !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        providerName = try settings.string("OIDC_PROVIDER_NAME", default: "single sign-on")
        redirectURL = publicURL.appendingPathComponent("login/oidc/callback")
        timeout = try settings.duration("OIDC_TIMEOUT", default: .seconds(10), minimum: .milliseconds(100))
        authorityClaim = try settings.optionalString("OIDC_AUTHORITY_CLAIM").map { name throws(ConfigurationError) in
            AuthorityClaim(name: name, prefix: try settings.string("OIDC_AUTHORITY_PREFIX", default: ""))
        }
    }
}

extension PortalConfiguration {
    /// The settings every service reads the same way, with this service's defaults: all that `migrate` needs, so
    /// that a migration job is given the database and none of the service's secrets.
    public static func commonSettings(_ settings: Settings) throws(ConfigurationError) -> CommonSettings {
        try CommonSettings(settings, defaultDatabase: "sqlite://data/portal.db", managementPort: defaultManagementPort)
    }
}
