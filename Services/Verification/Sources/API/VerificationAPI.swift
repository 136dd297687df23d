import ExposureCore
import ExposureStatistics
import Foundation
import Logging
import Metrics
import OpenAPIRuntime
import VerificationDomain

/// The handlers of `openapi/verification.yaml`. Formats and policies live in `Domain/`, SQL in `Storage/`.
///
/// Every app-facing handler first decides real or fake (`cwa-fake`). A fake request changes no state; it waits
/// as long as real requests to the endpoint take and answers a padded random body of the same status and size.
/// Fake polls and TAN requests also read, with random keys, what real ones read (see `fake`).
struct VerificationAPI: APIProtocol {
    let sessions: SessionStore
    let tans: TanStore
    let teleTANs: TeleTANStore
    /// How teleTANs are stored: HMAC under a key outside the database.
    let teleTANHashes: TypedSecretHasher
    let testResults: TestResultLookup
    let officers: OfficerTokenVerifier
    /// The health authorities: each officer's limits, families and regions (`VerificationAPI+Authorities`).
    let authorities: AuthorityStore
    let lifetimes: Lifetimes
    let rateLimit: TeleTANRateLimit
    /// Wrong teleTAN guesses, per client address, per network, for all together and from the reserve.
    let teleTANGuesses: GuessThrottle
    /// The one-time codes of the other app families, the region each kind is issued for, and the throttle on wrong
    /// ones (`VerificationAPI+OneTimeCodes`).
    let codes: OneTimeCodeStore
    let codeRegions: OneTimeCodeRegions
    /// The families whose codes may be issued (`AppFamilies`).
    let families: AppFamilies
    let codeGuesses: OneTimeCodeGuesses
    /// The codes officers issued, for their status (`VerificationAPI+IssuedCodes`).
    let issuedCodes: IssuedCodeStore
    /// Health-authority systems' bearer tokens, which supervisors administer (`VerificationAPI+IssuerKeys`).
    let issuerKeys: IssuerStore
    /// The health authorities' signing keys (`/version/v1/signing-keys`, `/jwks/{authorityId}`).
    let signingKeys: AuthoritySigningKeyStore
    let latency: LatencyMatcher
    /// Outcomes of requests, published per finished hour only (`HourlyTally`): real or fake, valid or refused.
    let tally: HourlyTally
    /// Daily statistics (`VerificationFigures`), counted for real requests only, in memory; a fake request takes the
    /// same time without the increment.
    let statistics: DailyCounter
    let clock: any WallClock
    let random: any RandomSource
    let logger: Logger
    /// A refused guess is an app request's outcome too: tallied per hour like the others.
    func countRateLimited(_ limit: String) {
        tally.count(.init("verification_rate_limited_last_hour", [("limit", limit)]))
    }
    private let teleTANsIssued = MetricHandles<Counter> { values in
        Counter(label: "verification_teletans_issued_total", dimensions: [("type", values[0])])
    }
    /// One-time codes issued, by kind and by who asked (`portal` or `issuer`).
    let codesIssued = MetricHandles<Counter> { values in
        Counter(label: "verification_one_time_codes_issued_total", dimensions: [("kind", values[0]), ("via", values[1])])
    }

    // MARK: App-facing

    func getRegistrationToken(_ input: Operations.getRegistrationToken.Input) async throws -> Operations.getRegistrationToken.Output {
        let start = ContinuousClock.now
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        if try isFake(input.headers.cwa_hyphen_fake) {
            // The answer is built before the wait, as a real one is.
            let answer = registrationTokenResponse(Codes.uuidV4(using: random))
            await fake("registrationToken", since: start)
            return .created(.init(body: .json(answer)))
        }
        return try await real("registrationToken", since: start) {
            let key: RegistrationKey
            do {
                key = try RegistrationKey.parse(key: body.key, keyType: body.keyType.rawValue, keyDob: body.keyDob)
            } catch let error as RegistrationKeyError {
                throw APIError.badRequest(error.message, code: error.code.rawValue)
            }
            let token = Codes.uuidV4(using: random)
            let tokenHash = SecretHash.sha256Hex(token)
            let now = clock.now()
            switch key {
            case .guid(let hashedGUID, let dobHash):
                guard try await sessions.registerGUID(hashedGUID, dobHash: dobHash, tokenHash: tokenHash, now: now) == .registered else {
                    throw APIError.badRequest("This test is already registered.", code: "already_registered")
                }
                statistics.count(VerificationFigures.registrations, breakdown: "guid")
            case .teleTAN(let teleTAN):
                // A guess pays before its lookup, so concurrent guesses get no more lookups than tokens; a right one
                // is given back. The client's address and network are kept as keyed hashes, in memory only.
                let origin = GuessThrottle.Origin(ClientAddress.current)
                guard case .allowed(let pool) = teleTANGuesses.take(origin) else {
                    countRateLimited("teletan_failures")
                    throw APIError.tooManyRequests("Too many wrong teleTANs; try again later.")
                }
                let outcome: RegistrationOutcome
                do {
                    outcome = try await sessions.registerTeleTAN(candidates: teleTANHashes.candidates(teleTAN), tokenHash: tokenHash, now: now)
                } catch {
                    // No verdict: the guess taught nothing, so it costs nothing (a database outage drains no bucket).
                    teleTANGuesses.giveBack(origin, pool: pool)
                    throw error
                }
                guard outcome == .registered else {
                    throw APIError.badRequest("The teleTAN is unknown, expired or already used.", code: "invalid_teletan")
                }
                teleTANGuesses.giveBack(origin, pool: pool)
                statistics.count(VerificationFigures.registrations, breakdown: "teletan")
            }
            return .created(.init(body: .json(registrationTokenResponse(token))))
        }
    }

    func getTestResult(_ input: Operations.getTestResult.Input) async throws -> Operations.getTestResult.Output {
        let start = ContinuousClock.now
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        if try isFake(input.headers.cwa_hyphen_fake) {
            // The token's form is checked as a real request's is, before any lookup: an ill-formed one is a 400 for both.
            _ = try tokenHash(body.registrationToken)
            let answer = testResultResponse(LookedUpResult(result: 0, sampleCollection: clock.now().epochSeconds, labID: nil))
            await fake("testresult", since: start, decoy: { await lookUpDecoy() })
            return .ok(.init(body: .json(answer)))
        }
        return try await real("testresult", since: start) {
            let session = try await session(for: body.registrationToken)
            let result: LookedUpResult
            switch session.source {
            case .teleTAN:
                result = LookedUpResult(result: TestResultRules.teleTANResult, sampleCollection: session.createdAt, labID: nil)
            case .guid:
                guard let combined = try await lookUp(session) else {
                    throw APIError.forbidden("The results for the test and for the date of birth differ.", code: "dob_mismatch")
                }
                result = combined
            case .proteGO:
                // Never a session's source: a redeemed PIN mints a TAN, not a registration.
                throw unknownToken
            }
            return .ok(.init(body: .json(testResultResponse(result))))
        }
    }

    func getTan(_ input: Operations.getTan.Input) async throws -> Operations.getTan.Output {
        let start = ContinuousClock.now
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        if try isFake(input.headers.cwa_hyphen_fake) {
            _ = try tokenHash(body.registrationToken)
            let answer = tanResponse(Codes.uuidV4(using: random))
            await fake("tan", since: start, decoy: { await lookUpDecoy(); await sessionDecoy() })
            return .created(.init(body: .json(answer)))
        }
        return try await real("tan", since: start) {
            let tokenHash = try tokenHash(body.registrationToken)
            guard let session = try await sessions.session(tokenHash: tokenHash), session.source != .proteGO else { throw unknownToken }
            if session.source == .guid {
                let result = try await lookUp(session)
                guard let result, TestResultRules.allowsTAN(result.result) else {
                    throw APIError.badRequest("A TAN is issued only for a positive test result.", code: "result_not_positive")
                }
            }
            let tan = Codes.uuidV4(using: random)
            let now = clock.now()
            guard try await tans.issue(
                tanHash: SecretHash.sha256Hex(tan), tokenHash: tokenHash, source: session.source, type: session.teleTANType,
                validUntil: now.adding(lifetimes.tan), now: now
            ) else {
                throw APIError.badRequest("A TAN was already issued for this registration token.", code: "tan_already_issued")
            }
            statistics.count(VerificationFigures.tansIssued)
            return .created(.init(body: .json(tanResponse(tan))))
        }
    }

    // MARK: Internal

    func verifyTan(_ input: Operations.verifyTan.Input) async throws -> Operations.verifyTan.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        guard Codes.isUUIDv4(body.tan) else {
            count("tan_verify", "invalid")
            throw APIError.badRequest("tan must be a lower-case UUID v4.", code: "invalid_tan")
        }
        if let key = body.redemptionKey, !Codes.isRedemptionKey(key) {
            count("tan_verify", "invalid")
            throw APIError.badRequest("redemptionKey must be 32 lower-case hex characters.", code: "invalid_redemption_key")
        }
        guard let redeemed = try await tans.redeem(tanHash: SecretHash.sha256Hex(body.tan), key: body.redemptionKey, now: clock.now()) else {
            count("tan_verify", "refused")
            throw APIError.notFound("The TAN is unknown, expired or already used.", code: "tan_not_found")
        }
        count("tan_verify", "valid")
        statistics.count(VerificationFigures.tansRedeemed)
        return .ok(.init(headers: .init(X_hyphen_CWA_hyphen_TELETAN_hyphen_TYPE: Self.teleTANType(of: redeemed))))
    }

    func verifyTans(_ input: Operations.verifyTans.Input) async throws -> Operations.verifyTans.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        guard body.tans.count <= TanVerificationBatch.maxTANs else {
            throw refusedBatch(APIError(.contentTooLarge, code: "too_many_tans", message: "At most \(TanVerificationBatch.maxTANs) TANs per request."))
        }
        guard !body.tans.isEmpty else {
            throw refusedBatch(.badRequest("tans must hold at least one TAN.", code: "invalid_tan"))
        }
        if let bad = body.tans.firstIndex(where: { !Codes.isUUIDv4($0) }) {
            throw refusedBatch(.badRequest("tans[\(bad)] must be a lower-case UUID v4.", code: "invalid_tan"))
        }
        if let keys = body.redemptionKeys {
            guard keys.count == body.tans.count else {
                throw refusedBatch(.badRequest("redemptionKeys must hold one key per TAN.", code: "invalid_redemption_key"))
            }
            if let bad = keys.firstIndex(where: { !Codes.isRedemptionKey($0) }) {
                throw refusedBatch(.badRequest("redemptionKeys[\(bad)] must be 32 lower-case hex characters.", code: "invalid_redemption_key"))
            }
        }
        let redeemed = try await tans.redeem(tanHashes: body.tans.map(SecretHash.sha256Hex), keys: body.redemptionKeys, now: clock.now())
        let valid = redeemed.filter { $0 != nil }.count
        count("tan_verify", "valid", by: valid)
        statistics.count(VerificationFigures.tansRedeemed, by: valid)
        count("tan_verify", "refused", by: redeemed.count - valid)
        let verdicts = redeemed.map { Components.Schemas.TanVerdict(valid: $0 != nil, teleTanType: $0.flatMap(Self.teleTANType)) }
        return .ok(.init(body: .json(.init(verdicts: verdicts))))
    }

    /// Counts a refused batch request and returns the error to answer it with.
    private func refusedBatch(_ error: APIError) -> APIError {
        count("tan_verify", "invalid")
        return error
    }

    /// The type a valid TAN's teleTAN had, for `X-CWA-TELETAN-TYPE`; nil for TANs from test GUIDs.
    static func teleTANType(of redeemed: RedeemedTAN) -> Components.Schemas.TeleTanType? {
        guard redeemed.source == .teleTAN else { return nil }
        return redeemed.teleTANType.flatMap { Components.Schemas.TeleTanType(rawValue: $0.rawValue) }
    }

    func createTeleTan(_ input: Operations.createTeleTan.Input) async throws -> Operations.createTeleTan.Output {
        let type = TeleTANType(rawValue: input.headers.X_hyphen_CWA_hyphen_TELETAN_hyphen_TYPE?.rawValue ?? "TEST") ?? .test
        let (officer, authority) = try await officerAndAuthority(endpoint: "teletan")
        guard officer.roles.contains(type.requiredRole) else {
            count("teletan", "missing_role")
            throw APIError.unauthorized("The token does not carry the role \(type.requiredRole) needed for \(type.rawValue) teleTANs.")
        }
        try requireFamily(.cwa, of: authority, endpoint: "teletan")
        let now = clock.now()
        let request = try teleTANRequestKey(input.headers.Idempotency_hyphen_Key)
        if let answer = try await answerToRepeat(of: request, type: type, now: now) { return answer }
        // The officer's counter first, then the authority's, then everyone's, and the new row, in one transaction: a
        // refused or failed request counts in none.
        let counters = issuanceCounters(officer, of: authority, now: now)
        for _ in 0..<5 {
            let teleTAN = Codes.teleTAN(using: random)
            let sealed = try request.map { (keyHash: $0.lookupHash, sealedTeleTAN: try $0.seal(teleTAN, using: random)) }
            let validUntil = now.adding(lifetimes.teleTAN(type))
            switch try await teleTANs.issue(
                hash: teleTANHashes.hash(teleTAN), type: type, validUntil: validUntil, now: now, request: sealed,
                owner: CodeOwner(officer: officer.owner, authority: authority.id), publicID: Codes.uuidV4(using: random),
                counters: counters.counters, windowStart: rateLimit.windowStart(now: now)
            ) {
            case .issued(let counts):
                warnNearLimit(counts, of: counters)
                teleTANsIssued(type.rawValue).increment()
                statistics.count(VerificationFigures.teleTANsIssued)
                statistics.count(VerificationFigures.teleTANsIssuedByOfficer, breakdown: officer.subject)
                statistics.count(VerificationFigures.teleTANsIssuedByAuthority, breakdown: authority.id)
                return .created(.init(body: .json(.init(value: teleTAN))))
            case .refused(let counter):
                // A repeat of this request that took the last place while this one waited for the counter is still
                // answered with its teleTAN.
                if let answer = try await answerToRepeat(of: request, type: type, now: now) { return answer }
                throw refusal(counters.limits[counter], authority: authority)
            case .notStored:
                // A repeat of this request that arrived while it ran stored its teleTAN first: both answer with that one.
                if let answer = try await answerToRepeat(of: request, type: type, now: now) { return answer }
            }
        }
        throw APIError.internalError("Could not generate a unique teleTAN.")
    }


    /// The idempotency key's storage form; nil without one.
    private func teleTANRequestKey(_ header: String?) throws(APIError) -> TeleTANRequestKey? {
        guard let header else { return nil }
        guard Codes.isIdempotencyKey(header) else {
            count("teletan", "invalid")
            throw APIError.badRequest("Idempotency-Key must be 32 lower-case hex characters.", code: "invalid_idempotency_key")
        }
        return TeleTANRequestKey(idempotencyKey: header)
    }

    /// The answer to a repeat of a request that issued a teleTAN: the same teleTAN, for the same type, within
    /// `Lifetimes.teleTANRepeat`. Nothing is issued or counted against the limit. Nil when no request with this key
    /// issued one (or there is no key).
    private func answerToRepeat(
        of request: TeleTANRequestKey?, type: TeleTANType, now: Date
    ) async throws -> Operations.createTeleTan.Output? {
        guard let request, let earlier = try await teleTANs.issuance(requestKeyHash: request.lookupHash) else { return nil }
        guard earlier.type == type, now < earlier.createdAt.adding(lifetimes.teleTANRepeat),
              let teleTAN = request.open(earlier.sealedTeleTAN)
        else {
            count("teletan", "idempotency_key_reused")
            throw APIError.badRequest(
                "This Idempotency-Key was used for another type or too long ago; send a new key for a new teleTAN.",
                code: "idempotency_key_reused"
            )
        }
        count("teletan", "repeated")
        return .created(.init(body: .json(.init(value: teleTAN))))
    }

    // MARK: Helpers

    private var unknownToken: APIError {
        APIError.badRequest("The registration token is unknown.", code: "unknown_registration_token")
    }

    private func tokenHash(_ token: String) throws(APIError) -> String {
        guard Codes.isUUIDv4(token) else { throw unknownToken }
        return SecretHash.sha256Hex(token)
    }

    private func session(for token: String) async throws -> AppSession {
        guard let session = try await sessions.session(tokenHash: try tokenHash(token)) else { throw unknownToken }
        return session
    }

    /// The session's result from the test-result service; nil when the DOB variant disagrees.
    private func lookUp(_ session: AppSession) async throws -> LookedUpResult? {
        guard let hashedGUID = session.hashedGUID else { return nil }
        async let main = testResults.result(for: hashedGUID)
        if let dobHash = session.dobHash {
            async let dob = testResults.result(for: dobHash)
            return TestResultRules.combine(try await main, dob: try await dob)
        }
        return try await main
    }

    private func isFake(_ header: Components.Parameters.CwaFake) throws -> Bool {
        try FakeRequestHeader.isFake(header.rawValue)
    }

    /// Waits until a fake answer may leave; a `decoy` does the real request's reads first (see
    /// `LatencyMatcher.releaseFake`). A decoy reads only, keys that match nothing; its failures do not change the
    /// fake's answer.
    private func fake(_ endpoint: String, since start: ContinuousClock.Instant, decoy: (() async -> Void)? = nil) async {
        count(endpoint, "fake")
        await latency.releaseFake(endpoint: endpoint, since: start, decoy: decoy)
    }

    /// What a real poll does: find the session, ask the test-result service.
    private func lookUpDecoy() async {
        await sessionDecoy()
        _ = try? await testResults.result(for: randomKey())
    }

    /// A round trip to verification's own database.
    private func sessionDecoy() async {
        _ = try? await sessions.session(tokenHash: randomKey())
    }

    /// A hash of a fresh random UUID: the form of a token hash or a hashed GUID, matching no stored one.
    private func randomKey() -> String {
        SecretHash.sha256Hex(Codes.uuidV4(using: random))
    }

    /// Runs a real request, timing it for the release times of all answers, counting its outcome, and releasing
    /// a success as a fake one would be.
    private func real<T>(_ endpoint: String, since start: ContinuousClock.Instant, _ work: () async throws -> T) async throws -> T {
        do {
            let result = try await latency.measure(endpoint: endpoint, work)
            count(endpoint, "real")
            await latency.release(endpoint: endpoint, since: start)
            return result
        } catch {
            count(endpoint, "invalid")
            throw error
        }
    }

    /// Counts requests by outcome, for the hour's tally; a batch of TAN verifications counts each TAN as the single
    /// endpoint would.
    func count(_ endpoint: String, _ outcome: String, by amount: Int = 1) {
        tally.count(.init("verification_requests_last_hour", [("endpoint", endpoint), ("outcome", outcome)]), by: amount)
    }

    private func registrationTokenResponse(_ token: String) -> Components.Schemas.RegistrationTokenResponse {
        ResponsePadding.padded(targetSize: ResponseSizes.registrationToken, random: random) {
            .init(registrationToken: token, responsePadding: $0)
        }
    }

    private func testResultResponse(_ result: LookedUpResult) -> Components.Schemas.TestResultResponse {
        ResponsePadding.padded(targetSize: ResponseSizes.testResult, random: random) {
            .init(testResult: result.result, sc: result.sampleCollection, labId: result.labID, responsePadding: $0)
        }
    }

    private func tanResponse(_ tan: String) -> Components.Schemas.TanResponse {
        ResponsePadding.padded(targetSize: ResponseSizes.tan, random: random) {
            .init(tan: tan, responsePadding: $0)
        }
    }
}
