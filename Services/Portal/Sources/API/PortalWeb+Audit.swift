import ExposureCore
import Foundation
import Hummingbird
import NIOCore
import PortalDomain

/// The audit page for supervisors: the administration's steps and every teleTAN and code request, newest first,
/// filtered by officer, action and days, a page at a time, each row's detail as a sentence in the page's language;
/// and the filtered rows as CSV (`/audit.csv`).
extension PortalWeb {
    static let auditFilterFields = ["actor", "action", "from", "to"]

    func auditPage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .audit) { current, scope in
            let given = Self.auditQuery(request)
            guard let filter = try? Self.auditFilter(given, page: request.uri.queryParameters["page"].map(String.init)) else {
                return refused(.badFilter, request, current)
            }
            let found = try await officerAudit.page(filter, in: scope)
            let language = language(request)
            let a = language.accountTexts
            let rows = found.prefix(AuditFilter.pageSize).map { entry -> [String: Any] in
                [
                    "time": language.format.minute(epochSeconds: entry.occurredAt),
                    "datetime": Date.iso8601(entry.occurredAt),
                    "actor": entry.actorSource == .local ? entry.actor : "\(entry.actor) (\(entry.actorSource.rawValue))",
                    "action": entry.action,
                    "actionLabel": Self.label(ofAction: entry.action, language),
                    "target": entry.target ?? "",
                    "detail": AuditDetail.sentence(action: entry.action, detail: entry.detail, a),
                ]
            }
            // The links to the neighbouring pages and the download keep the filter.
            let kept = Self.auditFilterFields.compactMap { name in given[name].flatMap { $0.isEmpty ? nil : (name, $0) } }
            func link(page: Int) -> String { "/audit?" + FormEncoding.encode(kept + [("page", "\(page)")]) }
            var values: [String: Any] = [
                "entries": rows,
                "actions": OfficerAction.filterValues.map { value -> [String: Any] in
                    var option: [String: Any] = ["value": value, "label": Self.label(ofAction: value, language)]
                    if value == filter.action { option["selected"] = true }
                    return option
                },
                "pageLabel": PortalTexts.fill(a.pageNumber, ["page": "\(filter.page)"]),
                "download": "/audit.csv" + (kept.isEmpty ? "" : "?" + FormEncoding.encode(kept)),
            ]
            for name in ["actor", "from", "to"] { values[name] = given[name] ?? "" }
            if !rows.isEmpty { values["hasEntries"] = true }
            if filter.page > 1 { values["newer"] = link(page: filter.page - 1) }
            if found.count > AuditFilter.pageSize, filter.page < AuditFilter.maximumPage { values["older"] = link(page: filter.page + 1) }
            return pages.render("audit", language: language, title: a.auditTitle, session: current, values: values)
        }
    }

    /// `GET /audit.csv?actor=&action=&from=&to=`: every row the filter selects (at most `AuditFilter.exportLimit`, the
    /// newest), with the stored words, for a spreadsheet or another tool: `time,actor,source,action,target,detail`.
    func auditDownload(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .audit) { current, scope in
            guard let filter = try? Self.auditFilter(Self.auditQuery(request), page: nil) else {
                return refused(.badFilter, request, current)
            }
            let rows = try await officerAudit.export(filter, in: scope).map { entry in
                CSVText.row([
                    Date.iso8601(entry.occurredAt), entry.actor, entry.actorSource.rawValue, entry.action, entry.target ?? "", entry.detail ?? "",
                ])
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/csv; charset=utf-8",
                    .contentDisposition: "attachment; filename=\"audit.csv\"",
                    .cacheControl: "no-store",
                ],
                body: .init(byteBuffer: ByteBuffer(string: CSVText.lines([CSVText.row(["time", "actor", "source", "action", "target", "detail"])] + rows)))
            )
        }
    }

    /// The filter's fields as the query gives them.
    private static func auditQuery(_ request: Request) -> [String: String] {
        let query = request.uri.queryParameters
        return auditFilterFields.reduce(into: [String: String]()) { fields, name in fields[name] = query[Substring(name)].map(String.init) }
    }

    private static func auditFilter(_ given: [String: String], page: String?) throws(AuditFilter.Problem) -> AuditFilter {
        try AuditFilter.parse(actor: given["actor"], action: given["action"], from: given["from"], to: given["to"], page: page)
    }

    static func label(ofAction action: String, _ language: Language) -> String {
        let a = language.accountTexts
        return switch OfficerAction(rawValue: action) {
        case .added: a.actionAdded
        case .disabled: a.actionDisabled
        case .enabled: a.actionEnabled
        case .passwordReset: a.actionPasswordReset
        case .rolesChanged: a.actionRolesChanged
        case .passwordChanged: a.actionPasswordChanged
        case .totpEnrolled: a.actionTOTPEnrolled
        case .recoveryCodeUsed: a.actionRecoveryCodeUsed
        case .authorityAdded: language.administratorTexts.actionAuthorityAdded
        case .authorityDisabled: language.administratorTexts.actionAuthorityDisabled
        case .authorityEnabled: language.administratorTexts.actionAuthorityEnabled
        case .authorityChanged: language.administratorTexts.actionAuthorityLimitsChanged
        case .maintenanceStarted: language.administratorTexts.actionMaintenanceStarted
        case .maintenanceEnded: language.administratorTexts.actionMaintenanceEnded
        case .issuerKeyCreated: language.issuerKeyTexts.actionCreated
        case .issuerKeyRevoked: language.issuerKeyTexts.actionRevoked
        case .signingKeyCreated: language.signingKeyTexts.actionCreated
        case .signingKeyRetired: language.signingKeyTexts.actionRetired
        case .labCredentialCreated: language.labCredentialTexts.actionCreated
        case .labCredentialRevoked: language.labCredentialTexts.actionRevoked
        case nil: action == OfficerAction.issuance ? a.actionIssue : action
        }
    }
}
