/// Every text of the portal's pages, one instance per language. A stored property per text makes a
/// missing translation a compile error; templates read them by name (`{{t.loginTitle}}`).
///
/// Texts with a `{placeholder}` are filled in by `PortalTexts.fill`.
public struct PortalTexts: Sendable {
    // Frame
    public let appTitle: String
    public let signedInAs: String
    public let signOut: String
    public let backToStart: String
    public let skipToContent: String
    /// The name of the language switcher's navigation, for screen readers.
    public let languageLabel: String

    // Login
    public let loginTitle: String
    public let userName: String
    public let password: String
    public let signIn: String
    public let signInWith: String
    public let or: String
    public let loginFailed: String
    /// `{duration}`
    public let loginThrottled: String
    public let signedOut: String
    public let sessionEnded: String
    public let oidcFailed: String
    public let continueTitle: String
    public let continueText: String

    // Start page
    public let startTitle: String
    public let startIntro: String
    public let testHeading: String
    public let testHint: String
    public let testButton: String
    public let eventHeading: String
    public let eventHint: String
    public let healthAuthority: String
    public let chooseHealthAuthority: String
    public let eventButton: String
    public let noHealthAuthorities: String
    public let noRoles: String
    /// The start page of an officer whose health authority may issue nothing (disabled, or none of the enabled kinds).
    public let authorityIssuesNothing: String
    public let covidShieldHeading: String
    public let covidShieldHint: String
    public let covidShieldButton: String
    public let proteGOHeading: String
    public let proteGOHint: String
    public let proteGOButton: String

    // teleTAN page
    public let teleTANTitle: String
    public let teleTANIntro: String
    public let kindTest: String
    public let kindEvent: String
    /// `{duration}`
    public let validFor: String
    public let copy: String
    public let copied: String
    /// `{duration}`
    public let hiddenAfter: String
    public let hidden: String
    public let issueAnother: String

    // One-time code page (other app families)
    public let codeTitle: String
    public let codeIntro: String
    public let region: String
    public let codeHidden: String
    public let issueAnotherCode: String

    // Problems
    public let errorTitle: String
    public let waitTitle: String
    /// `{seconds}`, `{interval}`
    public let officerLimit: String
    public let busyTitle: String
    public let globalLimit: String
    /// The officer's health authority reached its own limit (verification's 429 `authority_rate_limited`).
    public let authorityLimit: String
    public let formExpired: String
    public let forbidden: String
    public let badRequest: String
    public let unknownHost: String
    public let notFound: String
    public let verificationRefused: String
    public let unavailable: String
    /// The banner on every page while the portal is in maintenance (`MAINTENANCE_MODE`).
    public let maintenanceBanner: String
    public let maintenanceTitle: String
    /// What an officer who asks for a teleTAN or code during maintenance is told.
    public let maintenance: String
    public let internalError: String

    // Units, for `duration(seconds:)`
    public let minuteOne: String
    public let minutesMany: String
    public let hourOne: String
    public let hoursMany: String
    public let dayOne: String
    public let daysMany: String

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
