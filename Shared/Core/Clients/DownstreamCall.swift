import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Calls to one other service through its generated client, with failures told apart and logged alike.
///
/// A call that gets no answer becomes `DownstreamError.unreachable`; one whose answer does not decode becomes
/// `.unexpected(status:)` with the status the answer had. `send` also tells the status of every answer, so that a
/// caller names an unexpected one without a switch over each operation's generated output cases
/// (`ResponseStatusRecorder`, among `ServiceClients.middlewares`, writes it down). Log lines name the service, the
/// operation's status or error type, never the request (which carries TANs or hashed GUIDs).
public struct DownstreamCall: Sendable {
    public let service: String
    private let logger: Logger

    public init(service: String, logger: Logger) {
        self.service = service
        self.logger = logger
    }

    /// Sends one request and returns its decoded output with the answer's HTTP status.
    public func send<Output: Sendable>(_ request: () async throws -> Output) async throws -> (output: Output, status: Int) {
        let recorded = ResponseStatusRecorder.Box()
        do {
            let output = try await ResponseStatusRecorder.$current.withValue(recorded) { try await request() }
            return (output, recorded.status ?? 0)
        } catch {
            if let status = recorded.status {
                logger.warning("\(service) answered what its document does not describe", metadata: ["status": "\(status)"])
                throw DownstreamError(service: service, reason: .unexpected(status: status))
            }
            logger.warning("\(service) unreachable", metadata: ["error": "\(String(describing: (error as? ClientError)?.underlyingError ?? error))"])
            throw DownstreamError(service: service, reason: .unreachable)
        }
    }

    /// The error for an answer the caller cannot use, logged with its status.
    public func unexpected(status: Int) -> DownstreamError {
        logger.warning("\(service) refused the request", metadata: ["status": "\(status)"])
        return DownstreamError(service: service, reason: .unexpected(status: status))
    }

    /// The error for an answer that does not fit the request, logged.
    public func unfitting() -> DownstreamError {
        logger.warning("\(service) answered what does not fit the request")
        return DownstreamError(service: service, reason: .unfitting)
    }
}

/// Writes down the HTTP status of the final answer (after `RetryingClientMiddleware`'s retries) for the
/// `DownstreamCall` that sent the request.
public struct ResponseStatusRecorder: ClientMiddleware {
    /// Where the status of the current call goes; set by `DownstreamCall.send` for the task that sends.
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Int?
        var status: Int? {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    @TaskLocal static var current: Box?

    public init() {}

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        Self.current?.status = response.status.code
        return (response, responseBody)
    }
}
