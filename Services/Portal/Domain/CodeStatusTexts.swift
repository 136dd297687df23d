/// The code status page's texts in one language (`Language.codeStatusTexts`): an officer's codes of the last 7 days.
public struct CodeStatusTexts: Sendable {
    public let navigation: String
    public let title: String
    public let intro: String
    /// A supervisor's view of every officer's codes of their authority.
    public let authorityTitle: String
    public let authorityIntro: String
    public let showMine: String
    public let showAuthority: String
    public let kindHeading: String
    public let issuedHeading: String
    public let validUntilHeading: String
    public let statusHeading: String
    public let officerHeading: String
    public let actionHeading: String
    public let unused: String
    /// "used, {hour}"
    public let usedAt: String
    public let expired: String
    public let expireButton: String
    public let expiredNotice: String
    public let notLive: String
    public let unknownCode: String
    public let nothing: String
    /// Why an account without a role that issues codes (and not a supervisor) has no code status page.
    public let noRole: String
    /// Why the authority's view is refused to an officer who is not a supervisor.
    public let supervisorsOnly: String
    /// The kinds, by the name verification gives them (`TEST`).
    public let kinds: [String: String]

    public init(
        navigation: String, title: String, intro: String, authorityTitle: String, authorityIntro: String, showMine: String,
        showAuthority: String, kindHeading: String, issuedHeading: String, validUntilHeading: String, statusHeading: String,
        officerHeading: String, actionHeading: String, unused: String, usedAt: String, expired: String, expireButton: String,
        expiredNotice: String, notLive: String, unknownCode: String, nothing: String, noRole: String, supervisorsOnly: String, kinds: [String: String]
    ) {
        self.navigation = navigation
        self.title = title
        self.intro = intro
        self.authorityTitle = authorityTitle
        self.authorityIntro = authorityIntro
        self.showMine = showMine
        self.showAuthority = showAuthority
        self.kindHeading = kindHeading
        self.issuedHeading = issuedHeading
        self.validUntilHeading = validUntilHeading
        self.statusHeading = statusHeading
        self.officerHeading = officerHeading
        self.actionHeading = actionHeading
        self.unused = unused
        self.usedAt = usedAt
        self.expired = expired
        self.expireButton = expireButton
        self.expiredNotice = expiredNotice
        self.notLive = notLive
        self.unknownCode = unknownCode
        self.nothing = nothing
        self.noRole = noRole
        self.supervisorsOnly = supervisorsOnly
        self.kinds = kinds
    }
}
