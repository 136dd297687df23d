/// The issuer keys page's texts in one language (`Language.issuerKeyTexts`): a supervisor's keys for their health
/// authority's systems that issue one-time codes.
public struct IssuerKeyTexts: Sendable {
    /// The name of the navigation link.
    public let navigation: String
    public let title: String
    public let intro: String
    public let columnName: String
    public let columnKind: String
    public let columnRegion: String
    public let columnFingerprint: String
    public let columnCreated: String
    public let columnExpires: String
    public let columnLastUsed: String
    public let columnActions: String
    /// An expiry or a last use that is none.
    public let never: String
    public let revokeButton: String
    public let nothing: String
    public let addHeading: String
    public let addHint: String
    public let fieldName: String
    public let fieldKind: String
    public let fieldRegion: String
    public let fieldRegionHint: String
    public let fieldExpires: String
    public let fieldExpiresHint: String
    public let createButton: String
    public let tokenTitle: String
    /// Shown with the token, once (`{name}`: the key's name).
    public let tokenNotice: String
    /// How a CovidShield system sends the token; `usageProteGO` the same for ProteGO Safe's.
    public let usageCovidShield: String
    public let usageProteGO: String
    public let backToKeys: String
    /// `{name}`: the key revoked.
    public let revokedNotice: String
    public let refusedExists: String
    public let refusedInvalidName: String
    public let refusedInvalidExpiry: String
    public let refusedFamily: String
    public let refusedFamilyDisabled: String
    public let refusedRegion: String
    public let refusedUnknown: String
    /// The audit page's name of the action.
    public let actionCreated: String
    public let actionRevoked: String
    /// The kinds, by the name verification gives them (`PROTEGO`).
    public let kinds: [String: String]

    public init(
        navigation: String, title: String, intro: String, columnName: String, columnKind: String, columnRegion:
        String, columnFingerprint: String, columnCreated: String, columnExpires: String, columnLastUsed: String,
        columnActions: String, never: String, revokeButton: String, nothing: String, addHeading: String, addHint:
        String, fieldName: String, fieldKind: String, fieldRegion: String, fieldRegionHint: String, fieldExpires:
        String, fieldExpiresHint: String, createButton: String, tokenTitle: String, tokenNotice: String,
        usageCovidShield: String, usageProteGO: String, backToKeys: String, revokedNotice: String, refusedExists:
        String, refusedInvalidName: String, refusedInvalidExpiry: String, refusedFamily: String,
        refusedFamilyDisabled: String, refusedRegion: String, refusedUnknown: String, actionCreated: String,
        actionRevoked: String, kinds: [String: String]
    ) {
        self.navigation = navigation
        self.title = title
        self.intro = intro
        self.columnName = columnName
        self.columnKind = columnKind
        self.columnRegion = columnRegion
        self.columnFingerprint = columnFingerprint
        self.columnCreated = columnCreated
        self.columnExpires = columnExpires
        self.columnLastUsed = columnLastUsed
        self.columnActions = columnActions
        self.never = never
        self.revokeButton = revokeButton
        self.nothing = nothing
        self.addHeading = addHeading
        self.addHint = addHint
        self.fieldName = fieldName
        self.fieldKind = fieldKind
        self.fieldRegion = fieldRegion
        self.fieldRegionHint = fieldRegionHint
        self.fieldExpires = fieldExpires
        self.fieldExpiresHint = fieldExpiresHint
        self.createButton = createButton
        self.tokenTitle = tokenTitle
        self.tokenNotice = tokenNotice
        self.usageCovidShield = usageCovidShield
        self.usageProteGO = usageProteGO
        self.backToKeys = backToKeys
        self.revokedNotice = revokedNotice
        self.refusedExists = refusedExists
        self.refusedInvalidName = refusedInvalidName
        self.refusedInvalidExpiry = refusedInvalidExpiry
        self.refusedFamily = refusedFamily
        self.refusedFamilyDisabled = refusedFamilyDisabled
        self.refusedRegion = refusedRegion
        self.refusedUnknown = refusedUnknown
        self.actionCreated = actionCreated
        self.actionRevoked = actionRevoked
        self.kinds = kinds
    }
}
