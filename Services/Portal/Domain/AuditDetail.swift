/// An audit row's detail in words of the page's language: the roles an account was given, or what came of a request
/// for a teleTAN or code (stored as `KIND OUTCOME [HEALTH-AUTHORITY]`, e.g. `TEST officer_limited`). A detail it
/// cannot read is shown as stored, so that nothing recorded is ever hidden.
public enum AuditDetail {
    public static func sentence(action: String, detail: String?, _ a: AccountTexts) -> String {
        guard let detail, !detail.isEmpty else { return "" }
        switch action {
        case OfficerAction.added.rawValue, OfficerAction.rolesChanged.rawValue:
            let roles = detail.split(separator: ",").joined(separator: ", ")
            return a.auditRoles.replacingOccurrences(of: "{roles}", with: roles)
        case OfficerAction.issuance:
            let words = detail.split(separator: " ", maxSplits: 2).map(String.init)
            guard words.count >= 2, let what = a.auditRequests[words[0]], let outcome = a.auditOutcomes[words[1]] else { return detail }
            let request = words.count == 3 ? what + a.auditForAuthority.replacingOccurrences(of: "{authority}", with: words[2]) : what
            return a.auditRequest.replacingOccurrences(of: "{request}", with: request).replacingOccurrences(of: "{outcome}", with: outcome)
        default:
            return detail
        }
    }
}
