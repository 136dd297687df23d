import ExposureRules

/// What a supervisor may not do to their own account: anything that would lock them out of the administration (and
/// could leave nobody to undo it). Another supervisor can still do it.
public enum OfficerChangeRule {
    public enum Refusal: Sendable, Equatable {
        /// Disabling oneself would end one's own session at once.
        case disableSelf
        /// Removing one's own supervisor role would close this page behind one.
        case dropOwnSupervisorRole
        /// A reset ends every session of the account and shows the new password to the one who asked: one's own
        /// password is changed on the change-password page instead.
        case resetOwnPassword
    }

    /// Each answers why the change is refused, or nil when it may be made.
    public static func disable(actor: String, target: String) -> Refusal? {
        actor == target ? .disableSelf : nil
    }

    public static func resetPassword(actor: String, target: String) -> Refusal? {
        actor == target ? .resetOwnPassword : nil
    }

    public static func changeRoles(actor: String, target: String, to roles: Set<String>) -> Refusal? {
        actor == target && !roles.contains(OfficerRoles.supervisor) ? .dropOwnSupervisorRole : nil
    }
}
