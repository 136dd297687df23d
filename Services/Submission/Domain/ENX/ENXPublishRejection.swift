/// An answer of the ENX key server's `/v1/publish` that is not a plain success (design sheet enx.md, 2.9): the
/// status, the `code` the reference's v1 API sends, and an English sentence in `error`.
public struct ENXPublishRejection: Error, Sendable, Equatable {
    public enum Code: String, Sendable {
        case badRequest = "bad_request"
        case unknownHealthAuthority = "unknown_health_authority_id"
        case certificateInvalid = "health_authority_verification_certificate_invalid"
        case missingRevisionToken = "missing_revision_token"
        case invalidRevisionToken = "invalid_revision_token"
        case keyAlreadyRevised = "key_already_revised"
        case invalidReportTypeTransition = "invalid_report_type_transition"
        case partialFailure = "partial_failure"
        case internalError = "internal_error"

        /// The status the reference answers with the code.
        public var status: Int {
            switch self {
            case .unknownHealthAuthority, .certificateInvalid: 401
            case .partialFailure: 200
            default: 400
            }
        }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var status: Int { code.status }
}
