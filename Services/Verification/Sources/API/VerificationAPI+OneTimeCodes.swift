import ExposureCore
import VerificationDomain

// PLACEHOLDER until the one-time code store lands (branch `codes`): the contract in openapi/verification.yaml is
// fixed so that the app-family adapters can be built against it. Must not reach main.
extension VerificationAPI {
    func issueOneTimeCode(_ input: Operations.issueOneTimeCode.Input) async throws -> Operations.issueOneTimeCode.Output {
        throw APIError.internalError("One-time codes are not built yet.")
    }

    func redeemOneTimeCode(_ input: Operations.redeemOneTimeCode.Input) async throws -> Operations.redeemOneTimeCode.Output {
        throw APIError.internalError("One-time codes are not built yet.")
    }
}
