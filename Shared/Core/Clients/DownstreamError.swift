/// Why a call to another of our services brought no answer the caller can use.
///
/// A handler answers it as a 500 `dependency_unavailable` (`APIError(_:)`; `OpenAPIErrorMiddleware` does so for an
/// error that reaches it): the phone or lab should try again later. What went wrong is logged where it happened,
/// never sent to the client.
public struct DownstreamError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// No answer at all: the connection was refused, timed out or closed before an answer, after every retry.
        case unreachable
        /// An answer the caller cannot use: a status it does not expect, or a body that does not decode.
        case unexpected(status: Int)
        /// An answer that decoded but does not fit the request (say, fewer answers than items asked for).
        case unfitting
    }

    /// The service as a person calls it ("verification service").
    public let service: String
    public let reason: Reason

    public init(service: String, reason: Reason) {
        self.service = service
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .unreachable: "\(service) unreachable"
        case .unexpected(let status): "\(service) answered \(status)"
        case .unfitting: "\(service) answered what does not fit the request"
        }
    }
}

extension APIError {
    /// The answer to a request that needed another service which gave no usable answer.
    public init(_ error: DownstreamError) {
        self = .dependencyUnavailable(error.service)
    }
}
