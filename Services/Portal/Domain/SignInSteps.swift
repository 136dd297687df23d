import ExposureRules

/// The steps a local account's session takes after the password, in order: the second factor (when the account has
/// one), a new password (when a supervisor set a temporary one), and setting up two-factor sign-in (when the account
/// needs it and has none). Each step's page asks this what comes next.
public enum SignInSteps {
    public static func next(secondFactorPending: Bool, mustChangePassword: Bool, enrolled: Bool, enrolmentRequired: Bool) -> SessionStep? {
        if secondFactorPending { return .secondFactor }
        if mustChangePassword { return .changePassword }
        if enrolmentRequired && !enrolled { return .enrolTOTP }
        return nil
    }

    /// Supervisors and system administrators always need two-factor sign-in; officers when the operator says so
    /// (`TOTP_REQUIRED_FOR_OFFICERS`).
    public static func enrolmentRequired(roles: Set<String>, requiredForOfficers: Bool) -> Bool {
        roles.contains(OfficerRoles.supervisor) || roles.contains(OfficerRoles.systemAdministrator) || requiredForOfficers
    }
}
