import ExposureCore
import Foundation
import Hummingbird
import Logging
import PortalDomain

/// The portal: public-health officers sign in and issue teleTANs, which it obtains from verification.
public enum PortalService {
    public static let name = "portal"
    public static let listenerName = "web"

    /// Opens and migrates the database, loads (or creates) the signing key, then builds the listener and the
    /// clean-up job.
    public static func makeBundle(_ configuration: PortalConfiguration, environment: ServiceEnvironment) async throws -> ServiceBundle {
        let environment = environment.named(name)
        let signingKey = configuration.localLogin ? try PortalSigningKey.load(configuration) : nil
        let assets = try StaticAssets.bundled()
        let database = try await Database.open(configuration.common, migrator: PortalMigrations.migrator, environment: environment)
        do {
            let maintenance = MaintenanceState(
                bySetting: configuration.maintenance, store: PortalSettingsStore(database: database), clock: environment.clock, logger: environment.logger
            )
            let pages = try await PageRenderer.bundled(maintenance: maintenance)
            return try await makeBundle(
                configuration, database: database, signingKey: signingKey, pages: pages, maintenance: maintenance, assets: assets, environment: environment
            )
        } catch {
            await database.shutdown()
            throw error
        }
    }

    static func makeBundle(
        _ configuration: PortalConfiguration,
        database: Database,
        signingKey: PortalSigningKey?,
        pages: PageRenderer,
        maintenance: MaintenanceState,
        assets: StaticAssets,
        environment: ServiceEnvironment
    ) async throws -> ServiceBundle {
        let logger = environment.logger
        var signer: OfficerTokenSigner?
        if let signingKey {
            signer = await OfficerTokenSigner(
                key: signingKey.privateKey, issuer: configuration.tokenIssuer, audience: configuration.tokenAudience, lifetime: configuration.tokenLifetime,
                clock: environment.clock, random: environment.random
            )
        }
        let sessions = SessionStore(database: database)
        let oidcLogins = OIDCLoginStore(database: database)
        let rateLimits = OfficerRateLimitStore(database: database)
        let signInAttempts = SignInAttemptStore(database: database)
        // Verification and the OIDC provider: one that cannot be reached is reported at once, not at the timeout.
        let http = DownstreamHTTPClient(connectTimeout: configuration.verificationPolicy.timeout)
        // The portal's own token at verification, beside each officer's bearer token.
        let verificationToken = try ServiceTokens.required(configuration.verificationToken, variable: "VERIFICATION_API_TOKEN")
        let register = AuthorityRegister(
            baseURL: configuration.verificationURL, policy: configuration.verificationPolicy,
            serviceToken: verificationToken, http: http, logger: logger
        )
        let web = PortalWeb(
            configuration: configuration,
            pages: pages,
            cookies: SessionCookies(secure: configuration.cookieSecure, sessionLifetime: configuration.sessionTimeout),
            users: UserStore(database: database),
            sessions: sessions,
            oidcLogins: oidcLogins,
            rateLimits: rateLimits,
            signInAttempts: signInAttempts,
            audit: AuditLog(database: database),
            officerAudit: OfficerAuditLog(database: database),
            twoFactor: TwoFactorStore(database: database),
            // Without local accounts nobody has a TOTP secret: no key file is made.
            totpSealer: TOTPSecretSealer(key: configuration.localLogin ? try PortalTOTPKey.load(configuration) : environment.random.bytes(count: TOTPSecretSealer.keyBytes)),
            hasher: PasswordHasher(cost: configuration.bcryptCost),
            signer: signer,
            oidc: configuration.oidc.map { OIDCProvider(settings: $0, http: http.client, clock: environment.clock, logger: logger) },
            teleTANs: TeleTANIssuer(
                baseURL: configuration.verificationURL, policy: configuration.verificationPolicy, serviceToken: verificationToken,
                http: http, random: environment.random, logger: logger
            ),
            register: register,
            issuedCodes: IssuedCodeBook(
                baseURL: configuration.verificationURL, policy: configuration.verificationPolicy,
                serviceToken: verificationToken, http: http, logger: logger
            ),
            issuerKeys: IssuerKeyRegister(
                baseURL: configuration.verificationURL, policy: configuration.verificationPolicy,
                serviceToken: verificationToken, http: http, logger: logger
            ),
            signingKeys: SigningKeyRegister(
                baseURL: configuration.verificationURL, policy: configuration.verificationPolicy,
                serviceToken: verificationToken, http: http, logger: logger
            ),
            labCredentials: configuration.testResultToken.map { token in
                LabCredentialRegister(baseURL: configuration.testResultURL, policy: configuration.verificationPolicy, serviceToken: token, http: http, logger: logger)
            },
            maintenance: maintenance,
            settings: PortalSettingsStore(database: database),
            authorityCache: AuthorityCache(register: AuthorityRegister(
                baseURL: configuration.verificationURL, policy: AuthorityCache.lookupPolicy(configuration.verificationPolicy),
                serviceToken: verificationToken, http: http, logger: logger
            ), clock: environment.clock),
            statistics: StatisticsSources(settings: configuration.statistics, policy: configuration.verificationPolicy, http: http, logger: logger),
            assets: assets,
            clock: environment.clock,
            random: environment.random,
            logger: logger
        )

        // The liveness route comes first, without the host check: load balancers reach pods by address, not by name.
        let router = StandardRouter.make(service: name, bodyLimit: .init(maxBytes: PortalWeb.maxFormBytes))
        router.add(middleware: SecurityHeadersMiddleware(strictTransportSecurity: configuration.publicURL.scheme?.lowercased() == "https"))
        router.add(middleware: HTMLErrorMiddleware(pages: pages))
        router.add(middleware: HostAllowListMiddleware(allowedHosts: configuration.allowedHosts, trustedProxy: configuration.trustedProxy))
        router.add(middleware: PageLocationMiddleware())
        router.add(middleware: MaintenanceMiddleware(state: maintenance))
        web.register(on: router)

        let cleanup = PeriodicJob(name: "portal.cleanup", interval: configuration.cleanupInterval, logger: logger) {
            let now = environment.clock.now()
            let expired = try await sessions.deleteExpired(now: now)
            _ = try await oidcLogins.deleteStarted(before: now.addingTimeInterval(-PortalWeb.oidcLoginLifetime))
            _ = try await rateLimits.deleteExpired(now: now)
            _ = try await signInAttempts.deleteExpired(now: now, throttle: configuration.signInThrottle)
            if expired > 0 { logger.debug("expired sessions removed", metadata: ["count": "\(expired)"]) }
        }
        return ServiceBundle(
            name: name,
            listeners: [
                HTTPListener(
                    name: listenerName, address: configuration.listener, router: router, serviceName: name, logger: logger,
                    limits: configuration.common.listenerLimits
                ),
                ManagementRouter.listener(service: name, readiness: [ReadinessCheck.database(database)], common: configuration.common, logger: logger),
            ],
            jobs: [cleanup],
            cleanup: {
                await http.shutdown()
                await database.shutdown()
            }
        )
    }

    /// Applies migrations and closes the database.
    public static func commonSettings(_ settings: Settings) throws -> CommonSettings {
        return try PortalConfiguration.commonSettings(settings)
    }

    public static func migrate(_ common: CommonSettings, environment: ServiceEnvironment) async throws {
        let database = try await Database.open(common, migrator: PortalMigrations.migrator, environment: environment.named(name))
        await database.shutdown()
    }
}
