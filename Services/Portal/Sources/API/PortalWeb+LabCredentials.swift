import ExposureCore
import ExposureStatistics
import Foundation
import Hummingbird
import PortalDomain

/// Lab credentials (`/labs`): the national list of the labs' API keys and client certificates, for system
/// administrators. They create a lab's API key (shown once; a second one for a rotation), see the day each credential
/// was last used, and revoke one; every step is audited. Test-result keeps them and lets only the portal's token
/// reach them; the portal lets only system administrators reach the page.
extension PortalWeb {
    /// `GET /labs`.
    func labCredentialsPage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .labs) { current, _ in
            try await labCredentialsList(request, current, notice: nil)
        }
    }

    /// `POST /labs`: a new API key for the form's lab, on a page of its own.
    func createLabCredential(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .labs) { current, fields, _ in
            let language = language(request)
            let texts = language.labCredentialTexts
            guard let labCredentials else { return try await labCredentialsList(request, current, notice: nil) }
            let labID = fields["lab"]?.trimmingCharacters(in: .whitespaces) ?? ""
            switch await labCredentials.create(labID: labID) {
            case .done(let created):
                try await officerAudit.record(administration(
                    .labCredentialCreated, by: current, target: created.credential.labID, detail: created.credential.fingerprint, authority: nil))
                logger.info("lab key created", metadata: ["officer": "\(current.officer.name)", "lab": "\(created.credential.labID)"])
                return pages.render(
                    "lab-key", language: language, title: PortalTexts.fill(texts.keyTitle, ["lab": created.credential.labID]), session: current,
                    values: ["lc": texts, "key": created.apiKey]
                )
            case .invalid: return try await labCredentialsList(request, current, notice: PageNotice(texts.refusedInvalidLab, .badRequest))
            case .unknown: throw PortalError.verificationRefused
            case .unavailable: throw PortalError.unavailable
            }
        }
    }

    /// `POST /labs/revoke` with the lab and the credential's fingerprint: back to the list with what came of it.
    func revokeLabCredential(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .labs) { current, fields, _ in
            let texts = language(request).labCredentialTexts
            guard let labCredentials else { return try await labCredentialsList(request, current, notice: nil) }
            guard let labID = fields["lab"], !labID.isEmpty, let fingerprint = fields["fingerprint"], !fingerprint.isEmpty else {
                throw PortalError.badRequest
            }
            switch await labCredentials.revoke(labID: labID, fingerprint: fingerprint) {
            case .done:
                try await officerAudit.record(administration(.labCredentialRevoked, by: current, target: labID, detail: fingerprint, authority: nil))
                logger.info("lab credential revoked", metadata: ["officer": "\(current.officer.name)", "lab": "\(labID)"])
                let notice = PortalTexts.fill(texts.revokedNotice, ["fingerprint": fingerprint, "lab": labID])
                return try await labCredentialsList(request, current, notice: PageNotice(notice, .ok))
            // A malformed lab id or fingerprint names no credential: the same answer.
            case .unknown, .invalid: return try await labCredentialsList(request, current, notice: PageNotice(texts.refusedUnknown, .notFound))
            case .unavailable: throw PortalError.unavailable
            }
        }
    }

    private func labCredentialsList(
        _ request: Request, _ current: PortalSession, notice: PageNotice?
    ) async throws -> Response {
        let language = language(request)
        let texts = language.labCredentialTexts
        guard let labCredentials else {
            return pages.render(
                "labs", language: language, title: texts.title, session: current, status: .serviceUnavailable,
                values: ["lc": texts, "configured": false, "refusal": texts.notConfigured]
            )
        }
        let credentials: [LabCredentialRecord]
        switch await labCredentials.list() {
        case .done(let listed): credentials = listed
        case .unknown, .invalid: throw PortalError.verificationRefused
        case .unavailable: throw PortalError.unavailable
        }
        let format = language.format
        var values: [String: Any] = [
            "lc": texts,
            "configured": true,
            "hasCredentials": !credentials.isEmpty,
            "credentials": credentials.map { credential -> [String: Any] in
                [
                    "labID": credential.labID,
                    "kind": credential.isCertificate ? texts.kindCertificate : texts.kindAPIKey,
                    "fingerprint": credential.fingerprint,
                    "created": format.minute(epochSeconds: credential.createdAt),
                    "lastUsed": credential.lastUsedDay.flatMap(StatisticsDay.init).map { format.date(day: $0.number) } ?? texts.never,
                    "state": credential.revokedAt.map { PortalTexts.fill(texts.stateRevoked, ["date": format.minute(epochSeconds: $0)]) } ?? texts.stateActive,
                    "stateName": credential.revokedAt == nil ? "active" : "revoked",
                    "active": credential.revokedAt == nil,
                ]
            },
        ]
        notice?.add(to: &values)
        return pages.render("labs", language: language, title: texts.title, session: current, status: notice?.status ?? .ok, values: values)
    }
}
