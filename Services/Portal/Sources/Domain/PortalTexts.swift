/// Every text of the portal's pages, one instance per language. A stored property per text makes a
/// missing translation a compile error; templates read them by name (`{{t.loginTitle}}`).
///
/// Texts with a `{placeholder}` are filled in by `PortalTexts.fill`.
public struct PortalTexts: Sendable {
    // Frame
    let appTitle: String
    let signedInAs: String
    let signOut: String
    let backToStart: String
    let skipToContent: String

    // Login
    let loginTitle: String
    let userName: String
    let password: String
    let signIn: String
    let signInWith: String
    let or: String
    let loginFailed: String
    let signedOut: String
    let sessionEnded: String
    let oidcFailed: String
    let continueTitle: String
    let continueText: String

    // Start page
    let startTitle: String
    let startIntro: String
    let testHeading: String
    let testButton: String
    let eventHeading: String
    let healthAuthority: String
    let chooseHealthAuthority: String
    let eventButton: String
    let noHealthAuthorities: String
    let noRoles: String

    // teleTAN page
    let teleTANTitle: String
    let teleTANIntro: String
    let kindTest: String
    let kindEvent: String
    let validTest: String
    let validEvent: String
    let copy: String
    let copied: String
    /// `{minutes}`
    let hiddenAfter: String
    let hidden: String
    let issueAnother: String

    // Problems
    let errorTitle: String
    let waitTitle: String
    /// `{seconds}`, `{interval}`
    let officerLimit: String
    let busyTitle: String
    let globalLimit: String
    let formExpired: String
    let forbidden: String
    let badRequest: String
    let unknownHost: String
    let notFound: String
    let verificationRefused: String
    let unavailable: String
    let internalError: String

    /// Replaces `{name}` placeholders.
    public static func fill(_ text: String, _ values: [String: String]) -> String {
        var result = text
        for (name, value) in values { result = result.replacingOccurrences(of: "{\(name)}", with: value) }
        return result
    }
}
