/// The lab credentials page's texts in one language (`Language.labCredentialTexts`): the national list of the labs'
/// API keys and client certificates, for system administrators.
public struct LabCredentialTexts: Sendable {
    /// The name of the navigation link.
    public let navigation: String
    public let title: String
    public let intro: String
    /// How a rotation goes, under the list.
    public let rotationHint: String
    public let columnLab: String
    public let columnKind: String
    public let columnFingerprint: String
    public let columnCreated: String
    public let columnLastUsed: String
    public let columnState: String
    public let columnActions: String
    public let kindAPIKey: String
    public let kindCertificate: String
    public let stateActive: String
    /// `{date}`: when it was revoked.
    public let stateRevoked: String
    /// A last use that is none.
    public let never: String
    public let revokeButton: String
    public let nothing: String
    public let addHeading: String
    public let addHint: String
    public let fieldLab: String
    public let createButton: String
    /// `{lab}`: the lab the key is for.
    public let keyTitle: String
    /// Shown with the key, once.
    public let keyNotice: String
    /// How the lab system sends it.
    public let keyUsage: String
    public let backToCredentials: String
    /// `{fingerprint}`, `{lab}`: the credential revoked.
    public let revokedNotice: String
    public let refusedInvalidLab: String
    public let refusedUnknown: String
    /// The page of a portal without `TESTRESULT_API_TOKEN`.
    public let notConfigured: String
    /// The audit page's name of the action.
    public let actionCreated: String
    public let actionRevoked: String

    public init(
        navigation: String, title: String, intro: String, rotationHint: String, columnLab: String, columnKind: String,
        columnFingerprint: String, columnCreated: String, columnLastUsed: String, columnState: String, columnActions:
        String, kindAPIKey: String, kindCertificate: String, stateActive: String, stateRevoked: String, never: String,
        revokeButton: String, nothing: String, addHeading: String, addHint: String, fieldLab: String, createButton:
        String, keyTitle: String, keyNotice: String, keyUsage: String, backToCredentials: String, revokedNotice: String,
        refusedInvalidLab: String, refusedUnknown: String, notConfigured: String, actionCreated: String, actionRevoked:
        String
    ) {
        self.navigation = navigation
        self.title = title
        self.intro = intro
        self.rotationHint = rotationHint
        self.columnLab = columnLab
        self.columnKind = columnKind
        self.columnFingerprint = columnFingerprint
        self.columnCreated = columnCreated
        self.columnLastUsed = columnLastUsed
        self.columnState = columnState
        self.columnActions = columnActions
        self.kindAPIKey = kindAPIKey
        self.kindCertificate = kindCertificate
        self.stateActive = stateActive
        self.stateRevoked = stateRevoked
        self.never = never
        self.revokeButton = revokeButton
        self.nothing = nothing
        self.addHeading = addHeading
        self.addHint = addHint
        self.fieldLab = fieldLab
        self.createButton = createButton
        self.keyTitle = keyTitle
        self.keyNotice = keyNotice
        self.keyUsage = keyUsage
        self.backToCredentials = backToCredentials
        self.revokedNotice = revokedNotice
        self.refusedInvalidLab = refusedInvalidLab
        self.refusedUnknown = refusedUnknown
        self.notConfigured = notConfigured
        self.actionCreated = actionCreated
        self.actionRevoked = actionRevoked
    }
}
