import ExposureCore
import ExposureRules
import Foundation
import Hummingbird
import Logging
import VerificationDomain

/// The ENX device endpoints on verification's app listener (openapi/enx.yaml, tag `device`), which ENX on the phone
/// (or an app of Google's reference design) calls with its health authority's device key:
///
/// - `POST /api/verify`: a short or long code for a verification token; the code is claimed once;
/// - `POST /api/certificate`: the token and the HMAC of the phone's keys for a certificate the key server trusts; the
///   token is spent once.
///
/// Both answer `X-Chaff` requests (after the key is checked) with padding only, processing nothing, and release real
/// and chaff answers alike (`LatencyMatcher`), so that neither size nor time tells a real verification from cover
/// traffic.
struct ENXDeviceAPI: Sendable {
    let family: ENXFamily

    static let verifyPath = "/api/verify"
    static let certificatePath = "/api/certificate"

    func register(on router: Router<BasicRequestContext>) {
        router.post(RouterPath(stringLiteral: Self.verifyPath)) { request, _ in
            await family.answer(request, role: .device, endpoint: "enx_verify", chaff: true) { key in try await verify(request, key: key) }
        }
        router.post(RouterPath(stringLiteral: Self.certificatePath)) { request, _ in
            await family.answer(request, role: .device, endpoint: "enx_certificate", chaff: true) { key in try await certificate(request, key: key) }
        }
    }

    struct Verified: Encodable {
        let testtype: String
        let symptomDate: String?
        let testDate: String?
        let token: String
    }

    /// Checks the request in the reference's order (docs/enx.md, 2.1), then claims the code and stores its token in
    /// one transaction.
    func verify(_ request: Request, key: ENXAPIKey) async throws -> Response {
        let code = ENXRefusal.unparsableRequest
        let fields = try await ENXRequestBody.fields(request, known: ["code", "accept", "nonce", "padding"], refusing: code)
        let (text, accept, nonce) = try family.parsing(code) { (try fields.string("code") ?? "", try fields.strings("accept"), try fields.string("nonce")) }
        _ = try family.parsing(code) { try fields.string("padding") }
        guard let accepted = ENXReportType.accepted(by: accept) else {
            throw ENXRefusal(400, ENXRefusal.invalidTestType, "invalid test type")
        }
        if let nonce, !nonce.isEmpty, Data(lenientBase64: nonce) == nil {
            throw ENXRefusal(400, ENXRefusal.unparsableRequest, "nonce is not base64")
        }
        let settings = family.configuration.codes
        let now = family.context.clock.now().epochSeconds
        guard ENXCodes.isWellFormed(text, settings: settings) else { throw ENXClaimRule.invalidCode }
        // A lookup pays a guess first, so concurrent guesses get no more lookups than tokens; a code that exists gives
        // it back. The caller's address and network are kept as keyed hashes, in memory only.
        let origin = GuessThrottle.Origin(ClientAddress.current)
        guard case .allowed(let pool) = family.guesses.take(origin) else { throw ENXAnswer.TooManyGuesses() }
        let found: (row: ENXCodeStore.Row, form: ENXClaimRule.Form)?
        do {
            found = try await family.codes.find(authority: key.authority, code: text)
        } catch {
            // No verdict: the guess taught nothing, so it costs nothing (a database outage drains no bucket).
            family.guesses.giveBack(origin, pool: pool)
            throw error
        }
        guard let (stored, form) = found else { throw ENXClaimRule.invalidCode }
        family.guesses.giveBack(origin, pool: pool)
        let rule = ENXClaimRule.StoredCode(testType: stored.testType, expiresAt: stored.expiresAt, longExpiresAt: stored.longExpiresAt, claimed: stored.claimed)
        if let refusal = ENXClaimRule.refusal(of: rule, presented: form, accepted: accepted, now: now) { throw refusal }

        let subject = ENXTokenSubject(testType: stored.testType, symptomDate: stored.symptomDate, testDate: stored.testDate)
        let claims = ENXVerificationToken.claims(issuer: family.configuration.tokenIssuer, subject: subject, now: now, random: family.context.random)
        let signer = try await family.context.authorities.signer(of: key.authority)
        let token = try ENXVerificationToken.sign(claims, keyID: signer.keyID, with: signer.privateKey)
        let minted = ENXTokenStore.NewToken(
            id: ENXVerificationToken.storedID(jti: claims.jti), authority: key.authority, subject: subject, issuedAt: now, expiresAt: claims.exp
        )
        guard try await family.codes.claim(authority: key.authority, uuid: stored.uuid, form: form, now: now, token: minted) else {
            throw ENXClaimRule.invalidCode
        }
        family.context.statistics.count(family.context.figures.claimed, breakdown: family.name)
        return ENXAnswer.deviceSized(
            Verified(testtype: stored.testType.rawValue, symptomDate: stored.symptomDate?.description, testDate: stored.testDate?.description, token: token),
            random: family.context.random
        )
    }

    struct Certified: Encodable {
        let certificate: String
    }

    /// Checks the token offline, then the HMAC (a wrong one leaves the token usable), then the stored token; signs
    /// the certificate and spends the token last, so that a failure before leaves it usable (docs/enx.md, 2.2).
    func certificate(_ request: Request, key: ENXAPIKey) async throws -> Response {
        let code = ENXRefusal.tokenInvalid
        let fields = try await ENXRequestBody.fields(request, known: ["token", "ekeyhmac", "padding"], refusing: code)
        let (text, hmac) = try family.parsing(code) { (try fields.string("token") ?? "", try fields.string("ekeyhmac") ?? "") }
        _ = try family.parsing(code) { try fields.string("padding") }
        let now = family.context.clock.now().epochSeconds
        let authorities = family.context.authorities
        let checked: (claims: ENXVerificationToken.Claims, subject: ENXTokenSubject)
        do {
            checked = try await ENXVerificationToken.verify(text, issuer: family.configuration.tokenIssuer, now: now) {
                try await authorities.publicKey(keyID: $0)
            }
        } catch let problem as ENXVerificationToken.Problem {
            throw ENXRefusal(400, ENXRefusal.tokenInvalid, problem == .expired ? "verification token expired" : "invalid verification token")
        }
        _ = try ENXClaimRule.keyHMAC(hmac)
        let id = ENXVerificationToken.storedID(jti: checked.claims.jti)
        let spent = ENXRefusal(400, ENXRefusal.tokenExpired, "verification token invalid")
        guard let stored = try await family.tokens.usable(id: id, authority: key.authority, now: now), stored == checked.subject else { throw spent }

        let signer = try await authorities.signer(of: key.authority)
        let configuration = family.configuration
        let claims = ENXCertificateClaims(
            issuer: configuration.certificateIssuer(of: key.authority), audience: configuration.certificateAudience, now: now,
            lifetime: configuration.certificateLifetime.components.seconds, reportType: stored.testType, symptomDate: stored.symptomDate, tekmac: hmac
        )
        let certificate = try ENXCertificate.sign(claims, keyID: signer.keyID, with: signer.privateKey)
        guard try await family.tokens.spend(id: id, authority: key.authority, now: now) else { throw spent }
        return ENXAnswer.deviceSized(Certified(certificate: certificate), random: family.context.random)
    }
}
