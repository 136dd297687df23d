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
    typealias Answer = DownstreamAnswer

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
        return await Answer.settle("verification", doing: what, unavailable: unavailable, logger: logger) { try await operation(client) }
    }
}
