import ExposureCore
import ExposureStatistics
import Foundation
import OpenAPIRuntime
import VerificationDomain

/// The handlers of the two-phase redemption (`TanStore+Reservations`): reserve, confirm, release.
extension VerificationAPI {
    func reserveTans(_ input: Operations.reserveTans.Input) async throws -> Operations.reserveTans.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        try checkBatch(body.tans, name: "tans", endpoint: "tan_reserve")
        if let bad = body.tans.firstIndex(where: { !Codes.isUUIDv4($0) }) {
            throw refused("tan_reserve", .badRequest("tans[\(bad)] must be a lower-case UUID v4.", code: "invalid_tan"))
        }
        guard body.reservationKeys.count == body.tans.count else {
            throw refused("tan_reserve", .badRequest("reservationKeys must hold one key per TAN.", code: "invalid_redemption_key"))
        }
        try checkKeys(body.reservationKeys, endpoint: "tan_reserve")
        let requests = body.tans.indices.map {
            TanStore.ReservationRequest(tanHash: SecretHash.sha256Hex(body.tans[$0]), key: body.reservationKeys[$0])
        }
        let outcomes = try await tans.reserve(requests, now: clock.now())
        for outcome in outcomes { count("tan_reserve", Self.name(of: outcome)) }
        return .ok(.init(body: .json(.init(outcomes: outcomes.map(Self.answer)))))
    }

    func confirmTans(_ input: Operations.confirmTans.Input) async throws -> Operations.confirmTans.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        try checkBatch(body.reservationKeys, name: "reservationKeys", endpoint: "tan_confirm")
        try checkKeys(body.reservationKeys, endpoint: "tan_confirm")
        let (confirmed, firstSpent) = try await tans.confirmCounting(keys: body.reservationKeys, now: clock.now())
        count("tan_confirm", "confirmed", by: confirmed.count(where: { $0 != nil }))
        statistics.count(VerificationFigures.tansRedeemed, by: firstSpent)
        count("tan_confirm", "lapsed", by: confirmed.count(where: { $0 == nil }))
        return .ok(.init(body: .json(.init(
            outcomes: confirmed.map { $0 == nil ? .lapsed : .confirmed },
            origins: confirmed.map { tan in .init(source: tan.map(Self.source), region: tan?.region) }
        ))))
    }

    func releaseTans(_ input: Operations.releaseTans.Input) async throws -> Operations.releaseTans.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        try checkBatch(body.reservationKeys, name: "reservationKeys", endpoint: "tan_release")
        try checkKeys(body.reservationKeys, endpoint: "tan_release")
        let outcomes = try await tans.release(keys: body.reservationKeys, expiredOnly: body.expiredOnly ?? false, now: clock.now())
        for outcome in outcomes { count("tan_release", outcome.rawValue) }
        return .ok(.init(body: .json(.init(outcomes: outcomes.map(Self.answer)))))
    }

    // MARK: Checks shared by the three

    /// One to `TanVerificationBatch.maxTANs` items: 413 beyond, 400 for none.
    private func checkBatch(_ items: [String], name: String, endpoint: String) throws {
        guard items.count <= TanVerificationBatch.maxTANs else {
            throw refused(endpoint, APIError(.contentTooLarge, code: "too_many_tans", message: "At most \(TanVerificationBatch.maxTANs) \(name) per request."))
        }
        guard !items.isEmpty else {
            throw refused(endpoint, .badRequest("\(name) must hold at least one item.", code: "invalid_batch"))
        }
    }

    private func checkKeys(_ keys: [String], endpoint: String) throws {
        if let bad = keys.firstIndex(where: { !Codes.isRedemptionKey($0) }) {
            throw refused(endpoint, .badRequest("reservationKeys[\(bad)] must be 32 lower-case hex characters.", code: "invalid_redemption_key"))
        }
    }

    private func refused(_ endpoint: String, _ error: APIError) -> APIError {
        count(endpoint, "invalid")
        return error
    }

    private static func name(of outcome: TANReservationOutcome) -> String {
        switch outcome {
        case .reserved: "reserved"
        case .confirmed: "confirmed"
        case .busy: "busy"
        case .refused: "refused"
        }
    }

    /// The family a TAN was issued for, as the contract names it: the upload paths judge it.
    private static func source(of tan: RedeemedTAN) -> Components.Schemas.TanSource {
        switch tan.source {
        case .guid: .GUID
        case .teleTAN: .TELETAN
        case .proteGO: .PROTEGO
        }
    }

    private static func answer(_ outcome: TANReleaseOutcome) -> Components.Schemas.TanReleaseAnswer.outcomesPayloadPayload {
        switch outcome {
        case .released: .released
        case .confirmed: .confirmed
        case .leased: .leased
        }
    }

    private static func answer(_ outcome: TANReservationOutcome) -> Components.Schemas.TanReservationOutcome {
        switch outcome {
        case .reserved(let tan): .init(outcome: .reserved, teleTanType: teleTANType(of: tan), source: source(of: tan), region: tan.region)
        case .confirmed(let tan): .init(outcome: .confirmed, teleTanType: teleTANType(of: tan), source: source(of: tan), region: tan.region)
        case .busy(let retryAfter): .init(outcome: .busy, retryAfterSeconds: Int(retryAfter.components.seconds))
        case .refused: .init(outcome: .refused)
        }
    }
}
