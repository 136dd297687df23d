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

    static let newKeyClaim = "/new-key-claim"
    static let generateCode = "/generateCode"
    static let generateCodesBatch = "/generateCodesBatch"
    /// A callable's body is a few dozen bytes; anything near this is no request of an issuer.
    static let maxCallableBody = 16 * 1024

    /// Registers the endpoints of the enabled families only: a disabled family's paths answer 404.
    func register(on router: Router<BasicRequestContext>, families: AppFamilies) {
        router.add(middleware: IssuerMethodMiddleware(families: families))
        if families.covidShield {
            router.on(RouterPath(Self.newKeyClaim), method: .options) { _, _ in Self.corsPreflight() }
            router.post(RouterPath(Self.newKeyClaim)) { request, _ in await self.newKeyClaim(request) }
        }
        guard families.protego else { return }
        router.post(RouterPath(Self.generateCode)) { request, _ in
            // `data` is not read: every call gets one PIN of the standard lifetime.
            await self.callable(request, name: "generateCode") { issuer, _ in
                try await issue(1, by: issuer, lifetime: lifetimes.proteGOCode)[0]
            }
        }
        router.post(RouterPath(Self.generateCodesBatch)) { request, _ in
            await self.callable(request, name: "generateCodesBatch") { issuer, body in
                let arguments = (try? JSONDecoder().decode(BatchCall.self, from: body))?.data
                guard let count = arguments?.numberOfCodes, ProteGOBatch.isValidNumberOfCodes(count) else {
                    throw CallableError.invalidArgument(ProteGOBatch.numberOfCodesMessage)
                }
                guard let duration = arguments?.duration, ProteGOBatch.isValidDuration(duration) else {
                    throw CallableError.invalidArgument(ProteGOBatch.durationMessage)
                }
                return try await issue(count, by: issuer, lifetime: .seconds(duration))
            }
        }
    }

    // MARK: CovidShield

    /// `POST /new-key-claim`: one 8-digit code for the token's region, valid 10 minutes. The body is ignored (the
    /// sheet's request has none).
    func newKeyClaim(_ request: Request) async -> Response {
        // Exactly `Bearer <token>`, as the reference splits it: another scheme or spelling is no token.
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              case let token = String(header.dropFirst("Bearer ".count)), IssuerToken.isWellFormed(token)
        else { return Self.plainText(.unauthorized, "unauthorized") }
        do {
            guard let issuer = try await issuer(token: token, kind: .covidShield) else {
                return Self.plainText(.unauthorized, "unauthorized")
            }
            let code = try await issue(1, by: issuer, lifetime: lifetimes.covidShieldCode)[0]
            var response = Self.plainText(.ok, code)
            response.headers[.accessControlAllowOrigin] = "*"
            return response
        } catch let limited as LimitReached {
            // As the reference's Go handlers refuse: the status's words in plain text.
            var response = Self.plainText(.tooManyRequests, "too many requests")
            response.headers[.retryAfter] = "\(limited.retryAfterSeconds)"
            return response
        } catch {
            logger.error("new-key-claim failed", metadata: ["error": "\(type(of: error))"])
            return Self.plainText(.internalServerError, "server error")
        }
    }

    /// The reference's answer to a CORS preflight.
    static func corsPreflight() -> Response {
        var headers = HTTPFields()
        headers[.accessControlAllowOrigin] = "*"
        headers[.accessControlAllowMethods] = "POST"
        headers[.accessControlAllowHeaders] = "Accept, Content-Type, Content-Length, Accept-Encoding, Authorization, User-Agent"
        return Response(status: .ok, headers: headers, body: .init())
    }

    /// `text` and a line break in `text/plain`, as Go's `http.Error` writes it.
    static func plainText(_ status: HTTPResponse.Status, _ text: String) -> Response {
        GoPlainText.error(status, text)
    }

    // MARK: ProteGO

    /// A refusal of a callable function, as Firebase encodes it: `{"error": {"message", "status"}}`.
    enum CallableError: Error {
        case invalidArgument(String)
        case permissionDenied
        /// The issuer's limit is reached: Firebase's `resource-exhausted`, which it answers with 429.
        case resourceExhausted

        var status: HTTPResponse.Status {
            switch self {
            case .invalidArgument: .badRequest
            case .permissionDenied: .forbidden
            case .resourceExhausted: .tooManyRequests
            }
        }

        var body: [String: String] {
            switch self {
            case .invalidArgument(let message): ["message": message, "status": "INVALID_ARGUMENT"]
            case .permissionDenied: ["message": "Permission denied.", "status": "PERMISSION_DENIED"]
            case .resourceExhausted: ["message": "Too many codes issued; try again later.", "status": "RESOURCE_EXHAUSTED"]
            }
        }

        /// What Firebase answers to a request that is no call at all.
        static let badRequest = CallableError.invalidArgument("Bad Request")
    }

    /// `generateCodesBatch`'s `data`: each argument read on its own, so that a missing or mistyped one (a string, a
    /// boolean, 1.5) is that argument's refusal.
    struct BatchCall: Decodable {
        struct Arguments: Decodable {
            var numberOfCodes: Int?
            var duration: Int?

            enum CodingKeys: String, CodingKey { case numberOfCodes, duration }

            init(from decoder: any Decoder) throws {
                let container = try? decoder.container(keyedBy: CodingKeys.self)
                numberOfCodes = try? container?.decodeIfPresent(Int.self, forKey: .numberOfCodes)
                duration = try? container?.decodeIfPresent(Int.self, forKey: .duration)
            }
        }

        var data: Arguments?
    }

    /// Runs a callable function as Firebase does: a POST of `application/json` whose body is an object holding `data`
    /// and nothing else (400 INVALID_ARGUMENT otherwise), then the issuer's `api-token` (403 PERMISSION_DENIED unless
    /// it names a ProteGO issuer), then `work` with the issuer and the body; its value is answered as `result`.
    func callable(_ request: Request, name: String, _ work: (AuthorizedIssuer, Data) async throws -> any Sendable) async -> Response {
        do {
            let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard mediaType == "application/json" else { throw CallableError.badRequest }
            let bytes: ByteBuffer
            do {
                bytes = try await request.body.collect(upTo: Self.maxCallableBody)
            } catch {
                throw CallableError.badRequest
            }
            let body = Data(buffer: bytes)
            guard let envelope = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) as? [String: Any],
                  envelope.keys.count == 1, envelope["data"] != nil
            else { throw CallableError.badRequest }
            guard let token = request.headers[HTTPField.Name("api-token")!], let issuer = try await issuer(token: token, kind: .proteGO)
            else { throw CallableError.permissionDenied }
            let result = try await work(issuer, body)
            return Self.json(.ok, ["result": result])
        } catch let refusal as CallableError {
            return Self.json(refusal.status, ["error": refusal.body])
        } catch let limited as LimitReached {
            var response = Self.json(CallableError.resourceExhausted.status, ["error": CallableError.resourceExhausted.body])
            response.headers[.retryAfter] = "\(limited.retryAfterSeconds)"
            return response
        } catch {
            logger.error("\(name) failed", metadata: ["error": "\(type(of: error))"])
            return Self.json(.internalServerError, ["error": ["message": "INTERNAL", "status": "INTERNAL"]])
        }
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
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
