import ExposureCore
import Logging
import OpenAPIRuntime

/// What a call of another service's internal API made of the answer, before the steps every such call shares
/// (`settle`): verification's calls with an officer's token (`OfficerCall`) and test-result's with the portal's own
/// (`LabCredentialRegister`).
enum DownstreamAnswer<Outcome> {
    /// The caller's own outcome.
    case outcome(Outcome)
    /// A refusal of the request or token (400, 401): the caller's outcome, logged as a warning.
    case refused(Outcome)
    /// The service does not let the portal's token reach the route (its `INTERNAL_API_TOKENS` must name it portal).
    case forbiddenCaller
    case undocumented(Int)

    /// Runs `call` against `service`; what no operation can answer for itself (an unreachable service, a status the
    /// contract does not document, a token that may not reach the route) is logged and ends as `unavailable`. `what`
    /// names the operation in the logs.
    static func settle(
        _ service: String, doing what: String, unavailable: Outcome, logger: Logger, _ call: () async throws -> DownstreamAnswer<Outcome>
    ) async -> Outcome {
        do {
            switch try await call() {
            case .outcome(let outcome):
                return outcome
            case .refused(let outcome):
                logger.warning("\(service) refused the request", metadata: ["operation": "\(what)"])
                return outcome
            case .forbiddenCaller:
                logger.error("\(service) does not let this service's token reach the route; its INTERNAL_API_TOKENS must name it portal", metadata: ["operation": "\(what)"])
                return unavailable
            case .undocumented(let status):
                logger.error("\(service) answered an undocumented status", metadata: ["status": "\(status)", "operation": "\(what)"])
                return unavailable
            }
        } catch {
            logger.error("\(service) could not be reached", metadata: [
                "error": "\(type(of: error))", "operation": "\(what)",
                "cause": "\((error as? ClientError).map { String(describing: $0.underlyingError) } ?? "-")",
            ])
            return unavailable
        }
    }
}
