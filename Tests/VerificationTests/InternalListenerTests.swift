import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification

/// Verification's internal listener answers only the services configured for it (`INTERNAL_API_TOKENS`).
@Suite struct InternalListenerTests {
    /// The attack: anyone who reached the internal listener could spend a phone's TAN, or mint teleTANs with any
    /// officer token and without the portal's audit log. Without a caller's token both are refused, and nothing is
    /// spent or stored.
    @Test(arguments: TestDatabase.all)
    func withoutAServiceTokenNothingIsSpentOrIssued(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.registeredToken(result: 2)
            let tan = try #require(try await h.tan(token).json["tan"] as? String)
            let bare = TestHTTPClient(port: h.internal.port)

            Covers.status(401, of: "POST /version/v1/tan/verify", try await bare.postJSON("/version/v1/tan/verify", ["tan": tan]), error: "unknown_caller")
            Covers.status(401, of: "POST /version/v1/tans/verify", try await bare.postJSON("/version/v1/tans/verify", ["tans": [tan]]), error: "unknown_caller")
            let officer = try await h.officerToken(roles: ["c19hotline"])
            let minted = try await bare.request(.POST, "/version/v1/tan/teletan", headers: [("Authorization", "Bearer \(officer)")])
            Covers.status(401, of: "POST /version/v1/tan/teletan", minted, error: "unknown_caller")
            let forged = try await bare.postJSON(
                "/version/v1/tan/verify", ["tan": tan], headers: [(ServiceTokens.header, TestServiceTokens.submission.uppercased())])
            forged.expectError(401, "unknown_caller")
            #expect(try await h.rows("teletans") == 0)

            // The TAN is still there for the phone's own submission, through a caller that presents its token.
            #expect(try await h.verify(tan).status == 200)
            #expect(try await h.verify(tan).status == 404)
        }
    }
}
