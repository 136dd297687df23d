/// An answer of the ENX API that is not a success, as Google's verification server writes it: the status, the
/// `errorCode` (also sent as the deprecated `error_code`, always present, empty when there is none) and an English
/// sentence in `error`.
public struct ENXRefusal: Error, Sendable, Equatable {
    public let status: Int
    public let errorCode: String
    public let message: String

    public init(_ status: Int, _ errorCode: String, _ message: String) {
        self.status = status
        self.errorCode = errorCode
        self.message = message
    }

    public static let unparsableRequest = "unparsable_request"
    public static let missingDate = "missing_date"
    public static let invalidDate = "invalid_date"
    public static let invalidTestType = "invalid_test_type"
    public static let unsupportedTestType = "unsupported_test_type"
    public static let uuidAlreadyExists = "uuid_already_exists"
    public static let codeInvalid = "code_invalid"
    public static let codeExpired = "code_expired"
    public static let codeNotFound = "code_not_found"
    public static let tokenInvalid = "token_invalid"
    public static let tokenExpired = "token_expired"
    public static let hmacInvalid = "hmac_invalid"
    public static let quotaExceeded = "quota_exceeded"
    public static let internalError = "internal_server_error"
}
