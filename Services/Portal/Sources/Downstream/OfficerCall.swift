import ExposureCore
import Foundation
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import VerificationClient

/// One call of verification's internal API with an officer's bearer token, as every downstream client of the portal
/// makes it: the client is made per call (the token belongs to this officer and this call only), and what no operation
/// can answer for itself (an unreachable verification, a status the contract does not document, a service token that
/// may not reach the route) is logged and ends as the caller's "unavailable".
struct OfficerCall: Sendable {
    /// What an operation made of verification's answer, before the shared steps.
    enum Answer<Outcome> {
        /// The caller's own outcome.
        case outcome(Outcome)
        /// A refusal of the request or token (400, 401): the caller's outcome, logged as a warning.
        case refused(Outcome)
        /// Verification does not let this service's token reach the route (`INTERNAL_API_TOKENS` must name it portal).
        case forbiddenCaller
        case undocumented(Int)
    }

    private let baseURL: URL
    private let serviceToken: String
    private let transport: AsyncHTTPClientTransport
    private let policy: DownstreamPolicy
    let logger: Logger

    init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        self.baseURL = baseURL
        self.serviceToken = serviceToken
        self.transport = http.transport(timeout: policy.timeout)
        self.policy = policy
        self.logger = logger
    }

    /// Runs `operation` with a client that carries `bearer`; `unavailable` is the outcome when verification could not
    /// answer as its contract says. `what` names the operation in the logs.
    func perform<Outcome>(
        bearer: String, doing what: String, unavailable: Outcome, _ operation: (Client) async throws -> Answer<Outcome>
    ) async -> Outcome {
        let client = Client.verification(
            baseURL: baseURL,
            transport: transport,
            middlewares: [CredentialClientMiddleware.bearer(bearer)] + ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
        )
        do {
            switch try await operation(client) {
            case .outcome(let outcome):
                return outcome
            case .refused(let outcome):
                logger.warning("verification refused the request", metadata: ["operation": "\(what)"])
                return outcome
            case .forbiddenCaller:
                logger.error("verification does not let this service's token reach the route; its INTERNAL_API_TOKENS must name it portal", metadata: ["operation": "\(what)"])
                return unavailable
            case .undocumented(let status):
                logger.error("verification answered an undocumented status", metadata: ["status": "\(status)", "operation": "\(what)"])
                return unavailable
            }
        } catch {
            logger.error("verification could not be reached", metadata: [
                "error": "\(type(of: error))", "operation": "\(what)",
                "cause": "\((error as? ClientError).map { String(describing: $0.underlyingError) } ?? "-")",
            ])
            return unavailable
        }
    }
}
