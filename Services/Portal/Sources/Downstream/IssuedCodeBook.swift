import ExposureCore
import Foundation
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import PortalDomain
import VerificationClient

/// The codes an officer issued, as verification keeps them (`/version/v1/codes/issued`): listed and expired with the
/// officer's own bearer token, so that verification decides whose codes the officer may see (their own, or as a
/// supervisor their authority's) and the portal's own checks are never the only ones.
public struct IssuedCodeBook: Sendable {
    public enum Result<Value: Sendable & Equatable>: Sendable, Equatable {
        case done(Value)
        /// 404 `unknown_code`: no code the officer may see has the id.
        case unknown
        /// 409 `code_not_live`: used or expired already.
        case notLive
        /// Verification refused the request (400) or the token (401).
        case refused
        /// Verification could not be reached or failed (5xx, timeout, an undocumented answer).
        case unavailable
    }

    private let verification: OfficerCall

    public init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        verification = OfficerCall(baseURL: baseURL, policy: policy, serviceToken: serviceToken, http: http, logger: logger)
    }

    /// The codes of the last 7 days: the officer's own, or with `authorityWide` every officer's of their authority.
    public func list(authorityWide: Bool, bearer: String) async -> Result<[IssuedCodeRecord]> {
        await verification.perform(bearer: bearer, doing: "list issued codes", unavailable: .unavailable) { client in
            switch try await client.listIssuedCodes(query: .init(scope: authorityWide ? .authority : .mine)) {
            case .ok(let ok): .outcome(.done(try ok.body.json.codes.map(Self.record)))
            case .badRequest, .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func expire(id: String, bearer: String) async -> Result<Bool> {
        await verification.perform(bearer: bearer, doing: "expire an issued code", unavailable: .unavailable) { client in
            switch try await client.expireIssuedCode(body: .json(.init(id: id))) {
            case .noContent: .outcome(.done(true))
            case .notFound: .outcome(.unknown)
            case .conflict: .outcome(.notLive)
            case .badRequest, .unauthorized, .unsupportedMediaType: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    private static func record(_ code: Components.Schemas.IssuedCode) -> IssuedCodeRecord {
        let status: IssuedCodeRecord.Status = switch code.status {
        case .unused: .unused
        case .used: .used
        case .expired: .expired
        }
        return IssuedCodeRecord(
            id: code.id, kind: code.kind.rawValue, issuedAt: code.issuedAt, validUntil: code.validUntil, status: status,
            usedHour: code.usedHour, officer: code.officer
        )
    }
}
