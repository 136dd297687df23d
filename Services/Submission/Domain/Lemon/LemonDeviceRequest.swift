/// `POST /api/v1/devices` as sent, every field optional: the rules (`LemonDeviceRules`) decide what it is.
public struct LemonDeviceRequest: Sendable {
    public var appId: String?
    public var publicKey: String?
    public var operatingSystem: String?
    public var pushToken: String?
    public var language: String?
    public var seed: String?
    public var preMasterSecret: String?
    public var plainTextData: String?
    public var signedData: String?
    public var hasSignature: Bool

    public init(
        appId: String?, publicKey: String?, operatingSystem: String?, pushToken: String?, language: String?, seed: String?,
        preMasterSecret: String?, plainTextData: String?, signedData: String?, hasSignature: Bool
    ) {
        self.appId = appId
        self.publicKey = publicKey
        self.operatingSystem = operatingSystem
        self.pushToken = pushToken
        self.language = language
        self.seed = seed
        self.preMasterSecret = preMasterSecret
        self.plainTextData = plainTextData
        self.signedData = signedData
        self.hasSignature = hasSignature
    }

    /// A registration carries the device's public key; an authentication never does.
    public var isRegistration: Bool { publicKey != nil }
}
