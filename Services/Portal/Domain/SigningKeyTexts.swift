/// The signing keys page's texts in one language (`Language.signingKeyTexts`): the versions of a health authority's
/// key that signs the verification certificates phones upload their keys with.
public struct SigningKeyTexts: Sendable {
    /// The name of the navigation link.
    public let navigation: String
    public let title: String
    /// A system administrator's title: every authority's keys, to read.
    public let titleNational: String
    public let intro: String
    public let introNational: String
    /// `{path}`: where the authority's public keys are published on verification's app address.
    public let publishedAt: String
    public let columnKey: String
    public let columnAuthority: String
    public let columnState: String
    public let columnCreated: String
    public let columnRetired: String
    public let columnActions: String
    public let stateActive: String
    public let statePublished: String
    public let stateRetired: String
    public let retireButton: String
    public let nothing: String
    public let rotateHeading: String
    public let rotateHint: String
    public let rotateButton: String
    /// `{key}`: the version just made.
    public let createdNotice: String
    /// `{key}`: the version just retired.
    public let retiredNotice: String
    public let refusedUnavailable: String
    public let refusedActive: String
    public let refusedUnknown: String
    /// The audit page's name of the action.
    public let actionCreated: String
    public let actionRetired: String

    public init(
        navigation: String, title: String, titleNational: String, intro: String, introNational: String, publishedAt: String,
        columnKey: String, columnAuthority: String, columnState: String, columnCreated: String, columnRetired: String,
        columnActions: String, stateActive: String, statePublished: String, stateRetired: String, retireButton: String,
        nothing: String, rotateHeading: String, rotateHint: String, rotateButton: String, createdNotice: String,
        retiredNotice: String, refusedUnavailable: String, refusedActive: String, refusedUnknown: String,
        actionCreated: String, actionRetired: String
    ) {
        self.navigation = navigation
        self.title = title
        self.titleNational = titleNational
        self.intro = intro
        self.introNational = introNational
        self.publishedAt = publishedAt
        self.columnKey = columnKey
        self.columnAuthority = columnAuthority
        self.columnState = columnState
        self.columnCreated = columnCreated
        self.columnRetired = columnRetired
        self.columnActions = columnActions
        self.stateActive = stateActive
        self.statePublished = statePublished
        self.stateRetired = stateRetired
        self.retireButton = retireButton
        self.nothing = nothing
        self.rotateHeading = rotateHeading
        self.rotateHint = rotateHint
        self.rotateButton = rotateButton
        self.createdNotice = createdNotice
        self.retiredNotice = retiredNotice
        self.refusedUnavailable = refusedUnavailable
        self.refusedActive = refusedActive
        self.refusedUnknown = refusedUnknown
        self.actionCreated = actionCreated
        self.actionRetired = actionRetired
    }

    /// The state's words.
    public func state(_ state: SigningKeyRecord.State) -> String {
        switch state {
        case .active: stateActive
        case .published: statePublished
        case .retired: stateRetired
        }
    }
}
