import ExposureCore
import Foundation
import VerificationDomain

extension IssuerStore {
    /// Creates an issuer with a fresh token and answers it as listed, with the token: the command line and the
    /// portal's API both come here, so a token is generated, hashed and stored one way, and exists only in this
    /// answer. Nil when an issuer of that name exists.
    public func create(
        _ issuer: CodeIssuer, random: any RandomSource, now: Date, expiresAt: Date? = nil, createdBy: String? = nil
    ) async throws -> (summary: IssuerSummary, token: String)? {
        let token = IssuerToken.generate(using: random)
        guard let summary = try await add(issuer, tokenHash: IssuerToken.hash(token), now: now, expiresAt: expiresAt, createdBy: createdBy) else {
            return nil
        }
        return (summary, token)
    }
}
