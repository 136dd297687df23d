import HTTPTypes
import PortalDomain

/// Why the officer administration refused a request, as a page in the officer's language.
enum OfficerAdminProblem: Error, Equatable {
    /// A supervisor's page asked for by an officer without the role.
    case notSupervisor(SupervisorPage)
    case refused(OfficerChangeRule.Refusal)
    case nameTaken
    case invalidName
    case noSuchOfficer
    case badFilter

    var status: HTTPResponse.Status {
        switch self {
        case .notSupervisor: .forbidden
        case .refused, .nameTaken: .conflict
        case .invalidName, .badFilter: .badRequest
        case .noSuchOfficer: .notFound
        }
    }

    /// `data-problem` of the page.
    var code: String {
        switch self {
        case .notSupervisor: "not-supervisor"
        case .refused(.disableSelf): "disable-self"
        case .refused(.dropOwnSupervisorRole): "own-supervisor-role"
        case .refused(.resetOwnPassword): "reset-own-password"
        case .nameTaken: "name-taken"
        case .invalidName: "invalid-name"
        case .noSuchOfficer: "no-such-officer"
        case .badFilter: "bad-filter"
        }
    }

    func message(_ a: AccountTexts) -> String {
        switch self {
        case .notSupervisor(let page): PortalTexts.fill(a.notSupervisor, ["page": a.supervisorPages[page.rawValue] ?? page.rawValue])
        case .refused(.disableSelf): a.refusedDisableSelf
        case .refused(.dropOwnSupervisorRole): a.refusedOwnSupervisorRole
        case .refused(.resetOwnPassword): a.refusedResetOwnPassword
        case .nameTaken: a.refusedNameTaken
        case .invalidName: a.refusedInvalidName
        case .noSuchOfficer: a.refusedNoSuchOfficer
        case .badFilter: a.badFilter
        }
    }
}

/// The pages only supervisors see, for the page an officer without the role gets instead.
enum SupervisorPage: String, Equatable {
    case officers
    case audit
    case statistics
    case authorities

    /// A supervisor sees their own authority's rows here.
    var isForSupervisors: Bool { self != .authorities }

    /// A system administrator sees every authority's rows here (officers are administered by their authority's
    /// supervisors; a system administrator appoints an authority's first supervisor on the authorities page).
    var isForSystemAdministrators: Bool { self != .officers }
}
