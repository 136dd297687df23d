import ExposureCore
import ExposureRules
import Foundation
import Hummingbird
import Logging
import VerificationDomain

/// The ENX issuer endpoints on verification's issuer listener (openapi/enx.yaml, tag `issuer`), which a health
/// authority's systems call with an admin key of that authority:
///
/// - `POST /api/issue` and `POST /api/batch-issue` (up to 10): codes of a test type, with a symptom or test date;
/// - `POST /api/checkcodestatus`: whether a code (by the caller's `uuid` for it) was claimed, and its ends;
/// - `POST /api/expirecode`: ends an unclaimed code now.
///
/// Without an SMS provider (none is built yet; the seam is the phone field, refused today) a code's long form is never
/// handed out by this API, so its end is the short one's, as the reference's is without SMS.
struct ENXIssuerAPI: Sendable {
    let family: ENXFamily

    static let issuePath = "/api/issue"
    static let batchIssuePath = "/api/batch-issue"
    static let checkCodeStatusPath = "/api/checkcodestatus"
    static let expireCodePath = "/api/expirecode"
    /// The most codes one `/api/batch-issue` may ask for.
    static let batchLimit = 10

    func register(on router: Router<BasicRequestContext>) {
        router.post(RouterPath(stringLiteral: Self.issuePath)) { request, _ in
            await family.answer(request, role: .admin, endpoint: "enx_issue", chaff: false) { key in try await issue(request, key: key) }
        }
        router.post(RouterPath(stringLiteral: Self.batchIssuePath)) { request, _ in
            await family.answer(request, role: .admin, endpoint: "enx_batch_issue", chaff: false) { key in try await batchIssue(request, key: key) }
        }
        router.post(RouterPath(stringLiteral: Self.checkCodeStatusPath)) { request, _ in
            await family.answer(request, role: .admin, endpoint: "enx_check_code_status", chaff: false) { key in try await checkCodeStatus(request, key: key) }
        }
        router.post(RouterPath(stringLiteral: Self.expireCodePath)) { request, _ in
            await family.answer(request, role: .admin, endpoint: "enx_expire_code", chaff: false) { key in try await expireCode(request, key: key) }
        }
    }

    static let issueFields: Set<String> = [
        "symptomdate", "testdate", "testtype", "tzoffset", "phone", "smstemplatelabel", "uuid", "externalissuerid", "onlygeneratesms", "padding",
    ]

    struct Issued: Encodable {
        let uuid: String
        let code: String
        let expiresAt: String
        let expiresAtTimestamp: Int64
        let longExpiresAt: String
        let longExpiresAtTimestamp: Int64
    }

    func issue(_ request: Request, key: ENXAPIKey) async throws -> Response {
        let fields = try await ENXRequestBody.fields(request, known: Self.issueFields, refusing: ENXRefusal.unparsableRequest)
        let order = try family.parsing(ENXRefusal.unparsableRequest) { try Self.issueRequest(fields) }
        return ENXAnswer.success(try await issue(order, key: key), random: family.context.random)
    }

    /// An issue request's fields; the padding is read (for its type) and dropped.
    static func issueRequest(_ fields: ENXFields) throws(ENXFields.Malformed) -> ENXIssueOrder.Request {
        _ = try fields.string("padding")
        _ = try fields.string("smstemplatelabel")
        return ENXIssueOrder.Request(
            testType: try fields.string("testtype") ?? "", symptomDate: try fields.string("symptomdate"), testDate: try fields.string("testdate"),
            tzOffset: try fields.number("tzoffset"), phone: try fields.string("phone"), uuid: try fields.string("uuid"),
            externalIssuerID: try fields.string("externalissuerid"), onlyGenerateSMS: try fields.bool("onlygeneratesms") ?? false
        )
    }

    /// One code, checked in the reference's order: the request, then the `uuid` (409 before the test type), then the
    /// test type.
    func issue(_ request: ENXIssueOrder.Request, key: ENXAPIKey) async throws -> Issued {
        let settings = family.configuration.codes
        let now = family.context.clock.now().epochSeconds
        let order = try ENXIssueOrder(request, settings: settings, now: now)
        let taken = ENXRefusal(409, ENXRefusal.uuidAlreadyExists, "code for uuid already exists")
        if let uuid = order.uuid, try await family.codes.exists(authority: key.authority, uuid: uuid) { throw taken }
        let type = try order.checkTestType(settings: settings)
        // Counted before the code is stored: a failure after wastes a code of the allowance, never passes it.
        if let retryAfter = try await family.context.authorities.countIssuance(1, keyName: key.name, authority: key.authority) {
            family.context.logger.warning("ENX issuer limit reached", metadata: ["key": "\(key.name)", "authority": "\(key.authority)"])
            throw ENXRefusal(429, ENXRefusal.quotaExceeded, "exceeded daily realm quota configured by realm administrator, retry in \(retryAfter) seconds")
        }
        let uuid = order.uuid ?? Codes.uuidV4(using: family.context.random)
        let expiresAt = now + settings.shortCodeLifetime
        let new = ENXCodeStore.NewCode(
            authority: key.authority, uuid: uuid, testType: type, symptomDate: order.symptomDate, testDate: order.testDate,
            externalIssuer: order.externalIssuerID, issuedBy: key.name, issuedAt: now, expiresAt: expiresAt, longExpiresAt: expiresAt
        )
        let issued: ENXCodeStore.Issued
        do {
            issued = try await family.codes.issue(new, settings: settings, random: family.context.random)
        } catch is ENXCodeStore.UUIDTaken {
            throw taken
        }
        let figures = family.context.figures, statistics = family.context.statistics
        statistics.count(figures.issued, breakdown: family.name)
        statistics.count(figures.issuedByAuthority, breakdown: key.authority)
        statistics.count(figures.issuedByIssuer, breakdown: "enx:\(key.name)")
        family.context.logger.info("ENX code issued", metadata: ["key": "\(key.name)", "authority": "\(key.authority)", "type": "\(type.rawValue)"])
        return Issued(
            uuid: uuid, code: issued.shortCode, expiresAt: ENXTime.rfc1123(expiresAt), expiresAtTimestamp: expiresAt,
            longExpiresAt: ENXTime.rfc1123(expiresAt), longExpiresAtTimestamp: expiresAt
        )
    }

    /// One item of a batch's answer: a code, or why it was not issued.
    enum BatchItem: Encodable {
        case issued(Issued)
        case refused(ENXAnswer.ErrorBody)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .issued(let issued): try issued.encode(to: encoder)
            case .refused(let error): try error.encode(to: encoder)
            }
        }
    }

    struct Batch: Encodable {
        let codes: [BatchItem]
        let error: String?
        let errorCode: String?
        let error_code: String?
        let padding: String
    }

    /// Each item issued or refused on its own (not atomic, as the reference); the answer's status is the first
    /// refused item's (200 when none was), with its code on top.
    func batchIssue(_ request: Request, key: ENXAPIKey) async throws -> Response {
        let code = ENXRefusal.unparsableRequest
        let fields = try await ENXRequestBody.fields(request, known: ["codes", "padding"], refusing: code)
        let requests = try family.parsing(code) {
            _ = try fields.string("padding")
            return try (fields.objects("codes") ?? []).map { item throws(ENXFields.Malformed) in
                try Self.issueRequest(ENXFields(item, known: Self.issueFields))
            }
        }
        guard !requests.isEmpty else { throw ENXRefusal(400, "", "missing codes") }
        guard requests.count <= Self.batchLimit else { throw ENXRefusal(400, "", "batch size limit [\(Self.batchLimit)] exceeded") }
        var items: [BatchItem] = []
        var firstRefusal: ENXRefusal?
        for item in requests {
            do {
                items.append(.issued(try await issue(item, key: key)))
            } catch let refusal as ENXRefusal {
                items.append(.refused(ENXAnswer.ErrorBody(refusal)))
                firstRefusal = firstRefusal ?? refusal
            }
        }
        let padding = ENXAnswer.padding(family.context.random)
        guard let firstRefusal else {
            return ENXAnswer.json(.ok, Batch(codes: items, error: nil, errorCode: nil, error_code: nil, padding: padding))
        }
        let refused = items.filter { if case .refused = $0 { true } else { false } }.count
        // The reference's sentence, its missing space included; the middle part only when some code was issued.
        let issuedCount = items.count - refused
        let message = "Failed to issue \(refused) codes." + (issuedCount > 0 ? " Issued \(issuedCount) codes successfully." : "")
            + "See each error status in the codes array."
        return ENXAnswer.json(
            .init(code: firstRefusal.status),
            Batch(codes: items, error: message, errorCode: firstRefusal.errorCode, error_code: firstRefusal.errorCode, padding: padding)
        )
    }

    struct Status: Encodable {
        let claimed: Bool
        let expiresAtTimestamp: Int64
        let longExpiresAtTimestamp: Int64
    }

    static let codeNotFound = ENXRefusal(404, ENXRefusal.codeNotFound, "code not found")

    func checkCodeStatus(_ request: Request, key: ENXAPIKey) async throws -> Response {
        let uuid = try await Self.uuid(request, family: family)
        guard let row = try await family.codes.status(authority: key.authority, uuid: uuid) else { throw Self.codeNotFound }
        return ENXAnswer.success(
            Status(claimed: row.claimed, expiresAtTimestamp: row.expiresAt, longExpiresAtTimestamp: row.longExpiresAt), random: family.context.random
        )
    }

    struct Expired: Encodable {
        let expiresAtTimestamp: Int64
        let longExpiresAtTimestamp: Int64
    }

    func expireCode(_ request: Request, key: ENXAPIKey) async throws -> Response {
        let uuid = try await Self.uuid(request, family: family)
        switch try await family.codes.expire(authority: key.authority, uuid: uuid, now: family.context.clock.now().epochSeconds) {
        case .expired(let expiresAt, let longExpiresAt):
            family.context.logger.info("ENX code expired", metadata: ["key": "\(key.name)", "authority": "\(key.authority)"])
            return ENXAnswer.success(Expired(expiresAtTimestamp: expiresAt, longExpiresAtTimestamp: longExpiresAt), random: family.context.random)
        case .claimed:
            throw ENXRefusal(400, "", "bad request")
        case .unknown:
            throw Self.codeNotFound
        }
    }

    /// The `uuid` of a status or expiry request: an unreadable body is a 400 without a code; a text that is no UUID
    /// names no code (404), as the reference's database lookup finds none.
    static func uuid(_ request: Request, family: ENXFamily) async throws -> String {
        let fields = try await ENXRequestBody.fields(request, known: ["uuid", "padding"], refusing: "")
        let text: String = try family.parsing("") {
            _ = try fields.string("padding")
            return try fields.string("uuid") ?? ""
        }
        let uuid = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard UUID(uuidString: uuid) != nil else { throw codeNotFound }
        return uuid
    }
}
