import ExposureCore
import ExposureRules
import ExposureStatistics
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import VerificationDomain

/// The ENX family on the verification service (docs/enx.md): the protocol of Google's verification server, which
/// Exposure Notifications Express (built into iOS and Android) and the apps of Google's reference design speak. An
/// adapter at the edge, in `Families/ENX/` (its handlers and storage; its contract is openapi/enx.yaml), over what
/// verification shares with every family: the health authorities and their signing keys (`ENXAuthorities`), the
/// keyed hashes of codes people type, injected time and randomness, and the release times that hide fake traffic.
///
/// Its routes are registered by hand rather than generated: the reference matches field names without regard to
/// case and answers every failure in its own form, which generated decoders cannot do (docs/decisions.md).
public struct ENXFamily: Sendable {
    /// What verification gives the family.
    public struct Context: Sendable {
        public var database: Database
        /// The keyed hashes codes people type are stored as (the teleTAN keys).
        public var codeHashes: TypedSecretHasher
        public var authorities: any ENXAuthorities
        public var latency: LatencyMatcher
        /// Wrong codes allowed per phone, network and for all (`ONE_TIME_CODE_…`, the limits of every family's codes
        /// people type; a throttle of the family's own).
        public var codeGuesses: GuessLimits
        /// The service's daily statistics and the figures the family counts in them.
        public var statistics: DailyCounter
        public var figures: Figures
        public var clock: any WallClock
        public var random: any RandomSource
        public var logger: Logger

        public init(
            database: Database, codeHashes: TypedSecretHasher, authorities: any ENXAuthorities, latency: LatencyMatcher, codeGuesses: GuessLimits,
            statistics: DailyCounter, figures: Figures, clock: any WallClock, random: any RandomSource, logger: Logger
        ) {
            self.database = database
            self.codeHashes = codeHashes
            self.authorities = authorities
            self.latency = latency
            self.codeGuesses = codeGuesses
            self.statistics = statistics
            self.figures = figures
            self.clock = clock
            self.random = random
            self.logger = logger
        }
    }

    /// The service's figures the family's codes count in (docs/statistics.md), each with the breakdown `enx` where
    /// it is by family: codes issued (by family, by authority, by issuer key as `enx:<name>`) and claimed.
    public struct Figures: Sendable {
        public var issued: DailyFigure
        public var issuedByAuthority: DailyFigure
        public var issuedByIssuer: DailyFigure
        public var claimed: DailyFigure

        public init(issued: DailyFigure, issuedByAuthority: DailyFigure, issuedByIssuer: DailyFigure, claimed: DailyFigure) {
            self.issued = issued
            self.issuedByAuthority = issuedByAuthority
            self.issuedByIssuer = issuedByIssuer
            self.claimed = claimed
        }
    }

    public let name = "enx"
    let configuration: ENXConfiguration
    let context: Context
    let codes: ENXCodeStore
    let tokens: ENXTokenStore
    let keys: ENXAPIKeyStore
    /// Guesses at codes, in this replica: a code people type is 8 digits, and the device key that `/api/verify` needs
    /// ships in every phone, so only this stands between a guesser and the live codes (docs/security.md).
    let guesses: GuessThrottle

    public init(configuration: ENXConfiguration, context: Context) {
        self.configuration = configuration
        self.context = context
        guesses = context.codeGuesses.makeThrottle(clock: context.clock, random: context.random)
        codes = ENXCodeStore(database: context.database, hasher: context.codeHashes)
        tokens = ENXTokenStore(database: context.database)
        keys = ENXAPIKeyStore(database: context.database)
    }

    /// The paths the family answers on the app listener: their bodies are limited by the family (64,000 bytes), not
    /// by the listener's limit for the CWA endpoints.
    public static let appPathPrefix = "/api/"

    /// `/api/verify` and `/api/certificate`, for phones.
    public func registerDevice(on router: Router<BasicRequestContext>) {
        ENXDeviceAPI(family: self).register(on: router)
    }

    /// `/api/issue`, `/api/batch-issue`, `/api/checkcodestatus` and `/api/expirecode`, for health-authority systems.
    public func registerIssuer(on router: Router<BasicRequestContext>) {
        ENXIssuerAPI(family: self).register(on: router)
    }

    /// Its retention: codes two days after their last form died (the reference blanks their hashes then; status
    /// questions come within hours), tokens a day after theirs.
    public func retention(interval: Duration) -> any Service {
        PeriodicJob(name: "verification.enx-retention", interval: interval, logger: context.logger) {
            let now = context.clock.now().epochSeconds
            let codesDeleted = try await codes.purge(before: now - 2 * 86400)
            let tokensDeleted = try await tokens.purge(before: now - 86400)
            if codesDeleted + tokensDeleted > 0 {
                context.logger.info("ENX retention applied", metadata: ["codes": "\(codesDeleted)", "tokens": "\(tokensDeleted)"])
            }
        }
    }

    // MARK: Answering

    /// Runs an endpoint for a caller with an `X-API-Key` of `role`: anything else is 401, before the body is read.
    /// With `chaff`, an `X-Chaff` request is answered with padding only, released as a real answer would be. An
    /// `ENXRefusal` becomes its answer; any other failure a 500 in the family's form, logged without the request.
    func answer(
        _ request: Request, role: ENXAPIKey.Role, endpoint: String, chaff: Bool, _ work: (ENXAPIKey) async throws -> Response
    ) async -> Response {
        let start = ContinuousClock.now
        do {
            guard let secret = request.headers[.init("X-API-Key")!]?.trimmingCharacters(in: .whitespaces),
                  let key = try await keys.key(secret: secret), key.role == role,
                  try await context.authorities.isServed(key.authority)
            else { return ENXAnswer.unauthorized(request) }
            if chaff, let header = request.headers[.init("X-Chaff")!], !header.isEmpty {
                await context.latency.releaseFake(endpoint: endpoint, since: start)
                return ENXAnswer.chaff(random: context.random)
            }
            let response: Response
            do {
                response = try await context.latency.measure(endpoint: endpoint) { try await work(key) }
            } catch let refusal as ENXRefusal {
                response = ENXAnswer.refusal(refusal)
            } catch is ENXAnswer.TooManyGuesses {
                response = ENXAnswer.tooManyGuesses(retryAfterSeconds: Int((3600 + context.codeGuesses.source.perHour - 1) / context.codeGuesses.source.perHour))
            }
            if chaff { await context.latency.release(endpoint: endpoint, since: start) }
            return response
        } catch {
            context.logger.error("ENX request failed", metadata: ["endpoint": "\(endpoint)", "error": "\(String(reflecting: type(of: error)))"])
            return ENXAnswer.refusal(ENXRefusal(500, ENXRefusal.internalError, "internal error"))
        }
    }

    /// Reads fields; a field of the wrong type is a 400 with the endpoint's `code`.
    func parsing<T>(_ code: String, _ read: () throws -> T) throws(ENXRefusal) -> T {
        do {
            return try read()
        } catch {
            throw ENXRefusal.unparsable(code)
        }
    }
}
