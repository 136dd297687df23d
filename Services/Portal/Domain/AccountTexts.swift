/// The texts of the officer administration, the password change and the audit log, one instance per language (kept
/// apart from `PortalTexts` so that the pages of different features are translated in files of their own). Templates
/// read them as `{{a.name}}`; `{placeholder}`s are filled in by `PortalTexts.fill`.
public struct AccountTexts: Sendable {
    // Navigation
    public let navOfficers: String
    public let navAudit: String
    public let navPassword: String
    // Officer administration
    public let officersTitle: String
    public let officersIntro: String
    public let columnName: String
    public let columnRoles: String
    public let columnState: String
    public let columnActions: String
    public let stateActive: String
    public let stateDisabled: String
    public let stateTemporaryPassword: String
    public let roleHotline: String
    public let roleEventHotline: String
    public let roleSupervisor: String
    public let noOfficers: String
    public let addHeading: String
    public let addHint: String
    public let addButton: String
    public let disableButton: String
    public let enableButton: String
    public let resetButton: String
    public let rolesButton: String
    /// `{name}`
    public let rolesOf: String
    /// `{name}`
    public let doneDisabled: String
    /// `{name}`
    public let doneEnabled: String
    /// `{name}`
    public let doneRoles: String
    public let temporaryPasswordTitle: String
    /// `{name}`
    public let temporaryPasswordAdded: String
    /// `{name}`
    public let temporaryPasswordReset: String
    public let temporaryPasswordIntro: String
    public let backToOfficers: String
    /// The title of the page an officer without the supervisor role gets for a supervisor's page.
    public let supervisorsOnlyTitle: String
    /// "{page} is for supervisors …": what the page is and who may see it.
    public let notSupervisor: String
    /// Each supervisor's page, as `notSupervisor`'s `{page}` names it, by `SupervisorPage` name.
    public let supervisorPages: [String: String]
    public let refusedDisableSelf: String
    public let refusedOwnSupervisorRole: String
    public let refusedResetOwnPassword: String
    public let refusedNameTaken: String
    public let refusedInvalidName: String
    public let refusedNoSuchOfficer: String
    // Password change
    public let passwordTitle: String
    public let passwordForced: String
    public let currentPassword: String
    public let newPassword: String
    public let repeatPassword: String
    /// `{minimum}`
    public let passwordRule: String
    public let changePasswordButton: String
    public let passwordMismatch: String
    /// `{minimum}`
    public let passwordTooShort: String
    public let passwordTooLong: String
    public let passwordUnchanged: String
    public let currentPasswordWrong: String
    public let passwordChanged: String
    // Audit log
    public let auditTitle: String
    public let auditIntro: String
    public let filterActor: String
    public let filterAction: String
    public let filterFrom: String
    public let filterTo: String
    public let filterButton: String
    public let anyAction: String
    public let columnTime: String
    public let columnActor: String
    public let columnAction: String
    public let columnTarget: String
    public let columnDetail: String
    /// "With the roles {roles}." (an account added, or its roles changed).
    public let auditRoles: String
    /// "{request}: {outcome}." (a teleTAN or code asked for).
    public let auditRequest: String
    /// What was asked for, by kind (`TEST`, `EVENT`, `COVIDSHIELD`, `PROTEGO`).
    public let auditRequests: [String: String]
    /// " for health authority {authority}".
    public let auditForAuthority: String
    /// What came of it, by stored outcome (`issued`, `officer_limited`, …).
    public let auditOutcomes: [String: String]
    /// The link that downloads the filtered rows.
    public let auditDownloadCSV: String
    public let noEntries: String
    public let newerPage: String
    public let olderPage: String
    /// `{page}`
    public let pageNumber: String
    public let badFilter: String
    public let actionAdded: String
    public let actionDisabled: String
    public let actionEnabled: String
    public let actionPasswordReset: String
    public let actionRolesChanged: String
    public let actionPasswordChanged: String
    public let actionIssue: String
    // Two-factor sign-in
    public let secondFactorTitle: String
    public let secondFactorLabel: String
    public let secondFactorHint: String
    public let secondFactorButton: String
    public let secondFactorWrong: String
    public let totpTitle: String
    public let totpRequired: String
    public let totpIntro: String
    public let totpQRLabel: String
    public let totpKeyLabel: String
    public let totpCodeLabel: String
    public let totpConfirm: String
    public let totpDone: String
    public let recoveryCodesTitle: String
    public let recoveryCodesIntro: String
    public let continueButton: String
    public let actionTOTPEnrolled: String
    public let actionRecoveryCodeUsed: String
}
