/// A step a signed-in session must finish before the portal serves it anything else. A session in a step reaches only
/// that step's page and sign-out.
public enum SessionStep: String, Sendable, CaseIterable {
    /// The account has two-factor sign-in: the code from the authenticator app (or a recovery code) after the password.
    case secondFactor = "second-factor"
    /// The account's password is temporary (set by a supervisor): the officer chooses their own first.
    case changePassword = "change-password"
    /// The account needs two-factor sign-in (a supervisor, or every officer when the operator says so) and has none.
    case enrolTOTP = "enrol-totp"

    /// The page that finishes the step.
    public var path: String {
        switch self {
        case .secondFactor: "/login/code"
        case .changePassword: "/password"
        case .enrolTOTP: "/totp"
        }
    }
}
