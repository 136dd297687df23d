import ExposureCore
import Foundation
import VerificationDomain

/// The one-time codes of the other app families (openapi/verification.yaml, `/version/v1/codes`): issued for the
/// portal with an officer's token, redeemed for the submission service's app-family adapters.
extension VerificationAPI {
    func issueOneTimeCode(_ input: Operations.issueOneTimeCode.Input) async throws -> Operations.issueOneTimeCode.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        let kind = Self.kind(body.kind)
        guard families.serves(kind) else {
            count("code_issue", "invalid")
            throw APIError.badRequest("This deployment does not serve the app family of \(kind.rawValue) codes.", code: "family_disabled")
        }
        let (officer, authority) = try await officerAndAuthority(endpoint: "code_issue")
        guard officer.roles.contains(kind.requiredRole) else {
            count("code_issue", "missing_role")
            throw APIError.unauthorized("The token does not carry the role \(kind.requiredRole) needed for \(kind.rawValue) codes.")
        }
        let region = codeRegions.region(of: kind)
        if let asked = body.region, asked != region {
            count("code_issue", "invalid")
            throw APIError.badRequest("This deployment issues \(kind.rawValue) codes for the region \(region) only.", code: "unknown_region")
        }
        try requireFamily(AppFamily(kind), of: authority, endpoint: "code_issue")
        guard authority.serves(region: region) else {
            count("code_issue", "region_not_allowed")
            throw APIError.badRequest("Your health authority may not issue codes for the region \(region).", code: "region_not_allowed")
        }
        let now = clock.now()
        let validUntil = now.adding(lifetimes.oneTimeCode(kind))
        // Counted with the officer's teleTANs: the officer's counter first, then the authority's, then everyone's, and
        // the new row, in one transaction, so a refused or failed request counts in none.
        let counters = issuanceCounters(officer, of: authority, now: now)
        switch try await codes.issue(
            kind: kind, region: region, count: 1, now: now, validUntil: validUntil,
            owner: CodeOwner(officer: officer.owner, authority: authority.id), counters: counters.counters, windowStart: rateLimit.windowStart(now: now), random: random
        ) {
        case .issued(let issued, let counts):
            warnNearLimit(counts, of: counters)
            codesIssued(kind.rawValue, "portal").increment()
            statistics.count(VerificationFigures.codesIssuedByAuthority, breakdown: authority.id)
            statistics.count(VerificationFigures.codesIssued, breakdown: AppFamily(kind).rawValue)
            count("code_issue", "issued")
            return .created(.init(body: .json(.init(code: issued[0], kind: body.kind, region: region, validUntil: validUntil.epochSeconds))))
        case .refused(let counter):
            count("code_issue", "rate_limited")
            throw refusal(counters.limits[counter], authority: authority)
        }
    }

    func redeemOneTimeCode(_ input: Operations.redeemOneTimeCode.Input) async throws -> Operations.redeemOneTimeCode.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        let kind = Self.kind(body.kind)
        // A text that cannot be a code of the kind cannot be found: refused without a lookup, and without a token
        // (it teaches nothing about any code).
        guard let code = kind.normalized(body.code) else {
            count("code_redeem", "refused")
            throw unknownCode
        }
        // A guess pays before its lookup, so concurrent guesses get no more lookups than tokens; a right one is given
        // back. The phone's origin is the submission service's keyed hashes of its address and network.
        let origin = try Self.origin(body.origin)
        let guesses = codeGuesses.throttle(for: kind)
        guard case .allowed(let pool) = guesses.take(origin) else {
            count("code_redeem", "rate_limited")
            countRateLimited("code_failures")
            throw APIError.tooManyRequests("Too many wrong codes; try again later.")
        }
        let now = clock.now()
        var uploadToken: String?
        var mint: MintedTAN?
        if kind == .proteGO {
            // An opaque random TAN, stored as its SHA-256 like every TAN; its registration is a hash of random bytes.
            let token = Codes.uuidV4(using: random)
            uploadToken = token
            mint = MintedTAN(
                tanHash: SecretHash.sha256Hex(token), placeholderTokenHash: SecretHash.sha256Hex(random.bytes(count: 32)),
                validUntil: now.adding(lifetimes.proteGOUploadToken)
            )
        }
        let redeemed: RedeemedOneTimeCode?
        do {
            redeemed = try await codes.redeem(kind: kind, code: code, now: now, mint: mint)
        } catch {
            // No verdict: the guess taught nothing, so it costs nothing (a database outage drains no bucket).
            guesses.giveBack(origin, pool: pool)
            throw error
        }
        guard let redeemed else {
            count("code_redeem", "refused")
            throw unknownCode
        }
        guesses.giveBack(origin, pool: pool)
        count("code_redeem", "valid")
        statistics.count(VerificationFigures.codesRedeemed, breakdown: AppFamily(kind).rawValue)
        return .ok(.init(body: .json(.init(region: redeemed.region, issuedAt: redeemed.issuedAt, uploadToken: uploadToken))))
    }

    /// The phone's origin as the caller passed it: two keyed hashes, kept again only as keyed hashes
    /// (`GuessThrottle`). Without one, the request is of one unknown phone of one unknown network.
    static func origin(_ origin: Components.Schemas.GuessOrigin?) throws(APIError) -> GuessThrottle.Origin {
        guard let origin else { return GuessThrottle.Origin(source: [], network: []) }
        guard Codes.isOriginHash(origin.source), Codes.isOriginHash(origin.network),
              let source = [UInt8](hex: origin.source), let network = [UInt8](hex: origin.network)
        else {
            throw APIError.badRequest("origin.source and origin.network must be 32 lower-case hex characters.", code: "invalid_origin")
        }
        return GuessThrottle.Origin(source: source, network: network)
    }

    /// Unknown, used and expired codes are one answer.
    private var unknownCode: APIError {
        APIError.notFound("The code is unknown, expired or already used.", code: "unknown_code")
    }

    static func kind(_ kind: Components.Schemas.OneTimeCodeKind) -> OneTimeCodeKind {
        switch kind {
        case .COVIDSHIELD: .covidShield
        case .PROTEGO: .proteGO
        }
    }
}

/// The throttle on failed redemptions of one-time codes: one `GuessThrottle` per kind (per phone, per network, for all
/// phones together and the reserve), so that guessing one family's codes locks out nobody of another family, and
/// guessing from many networks locks out no phone of another network.
struct OneTimeCodeGuesses: Sendable {
    private let throttles: [OneTimeCodeKind: GuessThrottle]

    init(limits: GuessLimits, clock: any WallClock, random: any RandomSource) {
        throttles = Dictionary(uniqueKeysWithValues: OneTimeCodeKind.allCases.map { ($0, limits.makeThrottle(clock: clock, random: random)) })
    }

    func throttle(for kind: OneTimeCodeKind) -> GuessThrottle {
        throttles[kind]!
    }
}
