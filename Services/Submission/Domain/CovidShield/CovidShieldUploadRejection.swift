import ExposureProtocol

/// Why an upload is refused, with the HTTP status and the `EncryptedUploadResponse` error of the sheet.
public struct CovidShieldUploadRejection: Error, Sendable, Equatable {
    public typealias Code = Covidshield_EncryptedUploadResponse.ErrorCode

    public let status: Int
    public let code: Code

    public init(status: Int, code: Code) {
        self.status = status
        self.code = code
    }

    public static let unreadable = Self(status: 400, code: .unknown)
    public static let cryptoParameters = Self(status: 400, code: .invalidCryptoParameters)
    /// No live key pair has the request's server public key.
    public static let unknownKeyPair = Self(status: 401, code: .invalidKeypair)
    public static let decryptionFailed = Self(status: 400, code: .decryptionFailed)
    public static let invalidPayload = Self(status: 400, code: .invalidPayload)
    public static let tooManyKeys = Self(status: 400, code: .tooManyKeys)
    public static let invalidTimestamp = Self(status: 400, code: .invalidTimestamp)
    public static let invalidRollingPeriod = Self(status: 400, code: .invalidRollingPeriod)
    public static let invalidKeyData = Self(status: 400, code: .invalidKeyData)
    public static let invalidRollingStartNumber = Self(status: 400, code: .invalidRollingStartNumber)
    public static let invalidTransmissionRiskLevel = Self(status: 400, code: .invalidTransmissionRiskLevel)
    /// The key pair's budget cannot take this upload's new keys.
    public static let budgetUsedUp = Self(status: 400, code: .invalidKeypair)
    public static let serverError = Self(status: 500, code: .serverError)

    /// The answer body: the error is always encoded, NONE included (`0800`).
    public static func body(_ code: Code) -> [UInt8] {
        var response = Covidshield_EncryptedUploadResponse()
        response.error = code
        return (try? response.serializedBytes()) ?? []
    }
}
