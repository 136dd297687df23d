import ExposureProtocol

/// Why a key claim is refused, with the HTTP status and the `KeyClaimResponse` error the sheet gives each case.
public struct CovidShieldClaimRejection: Error, Sendable, Equatable {
    public let status: Int
    public let code: Covidshield_KeyClaimResponse.ErrorCode

    public init(status: Int, code: Covidshield_KeyClaimResponse.ErrorCode) {
        self.status = status
        self.code = code
    }

    /// Too big, unparsable or a required field missing.
    public static let unreadable = Self(status: 400, code: .unknown)
    /// The app's public key is not 32 bytes.
    public static let malformedAppKey = Self(status: 400, code: .invalidKey)
    /// The app's public key was bound by an earlier claim (keys are bound for ever).
    public static let appKeyBound = Self(status: 401, code: .invalidKey)
    /// Unknown, used or expired one-time code.
    public static let invalidCode = Self(status: 401, code: .invalidOneTimeCode)
    /// Verification throttles failed redemptions: not the code's fault, so not INVALID_ONE_TIME_CODE.
    public static let throttled = Self(status: 429, code: .serverError)
    public static let serverError = Self(status: 500, code: .serverError)

    /// The answer body: a `KeyClaimResponse` carrying only the error.
    public var body: [UInt8] {
        var response = Covidshield_KeyClaimResponse()
        response.error = code
        return (try? response.serializedBytes()) ?? []
    }
}
