/// One `uploadDiagnosisKeys` request of the ProteGO Safe apps, as decoded from its JSON envelope and before any rule
/// is applied: `{"data": <the exposure-notifications-server v1alpha1 publish body>, "isInteroperabilityEnabled": bool}`
/// (design sheet protego.md).
public struct ProteGOUpload: Sendable, Equatable {
    /// One `temporaryExposureKeys` entry, as sent.
    public struct Key: Sendable, Equatable {
        /// Padded base64 of the 16 key bytes.
        public var key: String
        public var rollingStartNumber: Int32
        public var rollingPeriod: Int32
        public var transmissionRisk: Int32

        public init(key: String, rollingStartNumber: Int32, rollingPeriod: Int32, transmissionRisk: Int32) {
            self.key = key
            self.rollingStartNumber = rollingStartNumber
            self.rollingPeriod = rollingPeriod
            self.transmissionRisk = transmissionRisk
        }
    }

    public var keys: [Key]
    public var regions: [String]
    /// The access token from `getAccessToken`: the upload TAN.
    public var verificationPayload: String
    /// iOS DeviceCheck or Android SafetyNet attestation; nil or empty when the app sent none.
    public var deviceVerificationPayload: String?
    /// Top-level flag of apps from November 2020: the user agreed to share keys with other countries.
    public var interoperabilityEnabled: Bool

    public init(
        keys: [Key], regions: [String], verificationPayload: String, deviceVerificationPayload: String?,
        interoperabilityEnabled: Bool
    ) {
        self.keys = keys
        self.regions = regions
        self.verificationPayload = verificationPayload
        self.deviceVerificationPayload = deviceVerificationPayload
        self.interoperabilityEnabled = interoperabilityEnabled
    }

    /// Whether the app sent an attestation at all. Its content is never checked (design sheet: the reference never
    /// did, and the exposure-notifications-server dropped DeviceCheck and SafetyNet checks), so it is only counted.
    public var hasDeviceAttestation: Bool {
        !(deviceVerificationPayload ?? "").isEmpty
    }
}
