import ExposureCore
import ExposureStatistics
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import VerificationDomain

/// The issuer listener (`ISSUER_PORT`): the families' own wire endpoints through which health-authority systems issue
/// one-time codes, exactly as their apps' original backends answered them (openapi/verification.yaml, tag `issuer`):
///
/// - CovidShield `POST /new-key-claim`: `Authorization: Bearer <token>`, answered `12345678\n` in plain text;
/// - ProteGO `POST /generateCode` and `POST /generateCodesBatch`: Firebase callable functions (`{"data": …}` in,
///   `{"result": …}` out), the token in `api-token`.
///
/// Each issuer is bound to one kind and one region (`verification-service issuers add`); a token of another kind is
/// refused like an unknown one. Each issuer may issue `ISSUER_CODES_PER_HOUR` codes an hour and `ISSUER_CODES_PER_DAY`
/// a day, or fewer where its authority says so (counted in the database, so across replicas): beyond, 429 in the
/// family's form, nothing issued. Every
/// issuance is counted in the daily statistics per issuer and leaves an audit row (issuer, kind, count, time; never a
/// code). The apps never reach this listener: it binds `INTERNAL_BIND_HOST`.
struct IssuerAPI: Sendable {
    let issuers: IssuerStore
    /// The issuers' health authorities: a disabled one's issuers, or one's that may not issue their family or region,
    /// issue nothing.
    let authorities: AuthorityStore
    let codes: OneTimeCodeStore
    let lifetimes: Lifetimes
    let limit: IssuerRateLimit
    let codesIssued: MetricHandles<Counter>
    /// Daily statistics (docs/statistics.md): codes per issuer.
    let statistics: DailyCounter
    let clock: any WallClock
    let random: any RandomSource
    let logger: Logger
    /// The issuers whose use of today this replica has written (`IssuerStore.markUsed`).
    let usesWritten = DailyUseNotes()

    /// Registers the endpoints of the enabled families only: a disabled family's paths answer 404. Each family's
    /// endpoints are in `IssuerAPI+<Family>.swift`, over the issuance every family shares (below).
    func register(on router: Router<BasicRequestContext>, families: AppFamilies) {
        router.add(middleware: IssuerMethodMiddleware(families: families))
        if families.covidShield { registerCovidShield(on: router) }
        if families.protego { registerProteGO(on: router) }
    }

    // MARK: Issuance

    /// The issuer whose token `token` is, when it may issue codes of `kind` now: an issuer of that kind, not expired,
    /// whose health authority is enabled and may issue its family for its region. Nil for any other token, known or
    /// not, so that each is answered as an unknown one: a disabled authority's or an expired key's systems learn
    /// nothing a stranger would not. The day of a key's use is noted for its supervisors (once a day).
    func issuer(token: String, kind: OneTimeCodeKind) async throws -> AuthorizedIssuer? {
        let now = clock.now()
        guard IssuerToken.isWellFormed(token), let issuer = try await issuers.issuer(tokenHash: IssuerToken.hash(token), now: now),
              issuer.kind == kind,
              let authority = try await authorities.authority(id: issuer.authority),
              authority.issues(AppFamily(kind)), authority.serves(region: issuer.region)
        else { return nil }
        let day = StatisticsDay(of: now).number
        try await usesWritten.note(issuer.name, day: day) { try await issuers.markUsed(name: issuer.name, day: day) }
        return AuthorizedIssuer(key: issuer, authority: authority)
    }

    /// An issuer's hour or day is used up: nothing was issued.
    struct LimitReached: Error {
        /// Until the window that refused ends.
        let retryAfterSeconds: Int64
    }

    /// `count` new codes of the issuer's kind for its region, counted against the issuer's own limits (not the
    /// officers': a batch of 1,000 would use up an hour of everyone's), the installation's or its authority's where
    /// lower, with their audit row, in one transaction.
    func issue(_ count: Int, by issuer: AuthorizedIssuer, lifetime: Duration) async throws -> [String] {
        let now = clock.now()
        let key = issuer.key
        let counters = issuer.authority.issuerLimit(within: limit).counters(issuer: key.name, now: now)
        switch try await codes.issue(
            kind: key.kind, region: key.region, count: count, now: now, validUntil: now.adding(lifetime),
            owner: CodeOwner(officer: nil, authority: key.authority),
            counters: counters.map { .init(scope: $0.scope, limit: $0.limit, windowStart: $0.windowStart) },
            auditIssuer: key.name, random: random
        ) {
        case .issued(let issued, _):
            codesIssued(key.kind.rawValue, "issuer").increment(by: count)
            statistics.count(VerificationFigures.codesIssuedByIssuer, breakdown: key.name, by: count)
            statistics.count(VerificationFigures.codesIssuedByAuthority, breakdown: key.authority, by: count)
            statistics.count(VerificationFigures.codesIssued, breakdown: AppFamily(key.kind).rawValue, by: count)
            logger.info("one-time codes issued", metadata: ["issuer": "\(key.name)", "kind": "\(key.kind.rawValue)", "count": "\(count)"])
            return issued
        case .refused(let index):
            logger.warning("issuer limit reached", metadata: ["issuer": "\(key.name)", "kind": "\(key.kind.rawValue)", "count": "\(count)"])
            throw LimitReached(retryAfterSeconds: max(1, counters[index].windowEnd - now.epochSeconds))
        }
    }
}

/// The methods the families' backends refused, in their own form: CovidShield answers anything but POST and OPTIONS
/// with 405 `method not allowed`, a callable function anything but POST with 400 INVALID_ARGUMENT.
/// A disabled family's paths are left to the router (404).
struct IssuerMethodMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let families: AppFamilies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if families.covidShield, path == IssuerAPI.newKeyClaim, request.method != .post, request.method != .options {
            return IssuerAPI.plainText(.methodNotAllowed, "method not allowed")
        }
        if families.protego, path == IssuerAPI.generateCode || path == IssuerAPI.generateCodesBatch, request.method != .post {
            return IssuerAPI.json(.badRequest, ["error": IssuerAPI.CallableError.badRequest.body])
        }
        return try await next(request, context)
    }
}
