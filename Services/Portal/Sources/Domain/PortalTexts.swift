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
    /// `{duration}`
    let loginThrottled: String
    let signedOut: String
    let sessionEnded: String
    let oidcFailed: String
    let continueTitle: String
    let continueText: String

    // Start page
    let startTitle: String
    let startIntro: String
    let testHeading: String
    let testHint: String
    let testButton: String
    let eventHeading: String
    let eventHint: String
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
    /// `{duration}`
    let validFor: String
    let copy: String
    let copied: String
    /// `{duration}`
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

    // Units, for `duration(seconds:)`
    let minuteOne: String
    let minutesMany: String
    let hourOne: String
    let hoursMany: String
    let dayOne: String
    let daysMany: String

    /// A whole number of days, hours or minutes (`2 days`, `1 Stunde`), the largest unit that divides it.
    public func duration(seconds: Int) -> String {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        if seconds >= 86400, seconds % 86400 == 0 { return count(seconds / 86400, dayOne, daysMany) }
        if seconds >= 3600, seconds % 3600 == 0 { return count(seconds / 3600, hourOne, hoursMany) }
        return count(max(1, seconds / 60), minuteOne, minutesMany)
    }

    /// Replaces `{name}` placeholders.
    public static func fill(_ text: String, _ values: [String: String]) -> String {
        var result = text
        for (name, value) in values { result = result.replacingOccurrences(of: "{\(name)}", with: value) }
        return result
    }
}
