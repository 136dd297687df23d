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
    /// The authorities page asked for by an officer who is no system administrator.
    case notSystemAdministrator
    case authorityForm(AuthorityForm.Problem)
    case authorityExists
    case noSuchAuthority
    /// Verification refused a change of an authority (400, or the administrator's token).
    case authorityRefused

    var status: HTTPResponse.Status {
        switch self {
        case .notSupervisor, .notSystemAdministrator: .forbidden
        case .refused, .nameTaken, .authorityExists: .conflict
        case .invalidName, .badFilter, .authorityForm: .badRequest
        case .noSuchOfficer, .noSuchAuthority: .notFound
        case .authorityRefused: .badGateway
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
        case .notSystemAdministrator: "not-system-administrator"
        case .authorityForm(.invalidID): "invalid-authority-id"
        case .authorityForm(.invalidName): "invalid-authority-name"
        case .authorityForm(.invalidRegions): "invalid-regions"
        case .authorityForm(.invalidLimit): "invalid-limit"
        case .authorityExists: "authority-exists"
        case .noSuchAuthority: "no-such-authority"
        case .authorityRefused: "verification-refused"
        }
    }

    func message(_ language: Language) -> String {
        let a = language.accountTexts, au = language.administratorTexts
        return switch self {
        case .notSupervisor(let page): PortalTexts.fill(a.notSupervisor, ["page": a.supervisorPages[page.rawValue] ?? page.rawValue])
        case .refused(.disableSelf): a.refusedDisableSelf
        case .refused(.dropOwnSupervisorRole): a.refusedOwnSupervisorRole
        case .refused(.resetOwnPassword): a.refusedResetOwnPassword
        case .nameTaken: a.refusedNameTaken
        case .invalidName: a.refusedInvalidName
        case .noSuchOfficer: a.refusedNoSuchOfficer
        case .badFilter: a.badFilter
        case .notSystemAdministrator: au.notSystemAdministrator
        case .authorityForm(.invalidID): au.refusedInvalidID
        case .authorityForm(.invalidName): au.refusedInvalidName
        case .authorityForm(.invalidRegions): au.refusedInvalidRegions
        case .authorityForm(.invalidLimit): au.refusedInvalidLimit
        case .authorityExists: au.refusedExists
        case .noSuchAuthority: au.refusedNoSuchAuthority
        case .authorityRefused: au.refusedByVerification
        }
    }
}

/// The pages only supervisors see, for the page an officer without the role gets instead.
enum SupervisorPage: String, Equatable {
    case officers
    case audit
    case statistics
    case authorities
    case maintenance
    case issuers
    case signingKeys = "signing-keys"
    /// The labs' credentials: national, for system administrators only.
    case labs

    /// A supervisor sees their own authority's rows here.
    var isForSupervisors: Bool { self != .authorities && self != .maintenance && self != .labs }

    /// A system administrator sees every authority's rows here (officers and issuer keys are administered by their
    /// authority's supervisors; a system administrator appoints an authority's first supervisor on the authorities
    /// page). Signing keys are theirs to read; only an authority's supervisors make and retire them.
    var isForSystemAdministrators: Bool { self != .officers && self != .issuers }
}
