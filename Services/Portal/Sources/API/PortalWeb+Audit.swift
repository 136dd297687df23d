import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// The audit page for supervisors: the administration's steps and every teleTAN and code request, newest first,
/// filtered by officer, action and days, a page at a time.
extension PortalWeb {
    func auditPage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .audit) { current in
            let query = request.uri.queryParameters
            let given = ["actor", "action", "from", "to"].reduce(into: [String: String]()) { fields, name in
                fields[name] = query[Substring(name)].map(String.init)
            }
            let filter: AuditFilter
            do {
                filter = try AuditFilter.parse(
                    actor: given["actor"], action: given["action"], from: given["from"], to: given["to"], page: query["page"].map(String.init)
                )
            } catch {
                return refused(.badFilter, request, current)
            }
            let found = try await officerAudit.page(filter)
            let language = language(request)
            let a = language.accountTexts
            let rows = found.prefix(AuditFilter.pageSize).map { entry -> [String: Any] in
                [
                    "time": Date.iso8601(entry.occurredAt),
                    "actor": entry.actorSource == .local ? entry.actor : "\(entry.actor) (\(entry.actorSource.rawValue))",
                    "action": entry.action,
                    "actionLabel": Self.label(ofAction: entry.action, a),
                    "target": entry.target ?? "",
                    "detail": entry.detail ?? "",
                ]
            }
            // The links to the neighbouring pages keep the filter.
            func link(page: Int) -> String {
                let kept = ["actor", "action", "from", "to"].compactMap { name in given[name].flatMap { $0.isEmpty ? nil : (name, $0) } }
                return "/audit?" + FormEncoding.encode(kept + [("page", "\(page)")])
            }
            var values: [String: Any] = [
                "entries": rows,
                "actions": OfficerAction.filterValues.map { value -> [String: Any] in
                    var option: [String: Any] = ["value": value, "label": Self.label(ofAction: value, a)]
                    if value == filter.action { option["selected"] = true }
                    return option
                },
                "pageLabel": PortalTexts.fill(a.pageNumber, ["page": "\(filter.page)"]),
            ]
            for name in ["actor", "from", "to"] { values[name] = given[name] ?? "" }
            if !rows.isEmpty { values["hasEntries"] = true }
            if filter.page > 1 { values["newer"] = link(page: filter.page - 1) }
            if found.count > AuditFilter.pageSize, filter.page < AuditFilter.maximumPage { values["older"] = link(page: filter.page + 1) }
            return pages.render("audit", language: language, title: a.auditTitle, session: current, values: values)
        }
    }

    static func label(ofAction action: String, _ a: AccountTexts) -> String {
        switch OfficerAction(rawValue: action) {
        case .added: a.actionAdded
        case .disabled: a.actionDisabled
        case .enabled: a.actionEnabled
        case .passwordReset: a.actionPasswordReset
        case .rolesChanged: a.actionRolesChanged
        case .passwordChanged: a.actionPasswordChanged
        case .totpEnrolled: a.actionTOTPEnrolled
        case .recoveryCodeUsed: a.actionRecoveryCodeUsed
        case nil: action == OfficerAction.issuance ? a.actionIssue : action
        }
    }
}
