import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// Issue #58, item 1, at verification: every TAN says what it was issued for. The reservation and the confirmation
/// answer its source (and a ProteGO TAN the region of its PIN), so that each family's upload path can refuse the
/// others'; the one-phase verification, the Corona-Warn-App's contract, does not find another family's TAN at all.
@Suite struct TanOriginTests {
    static func reserve(_ h: VerificationHarness, _ tan: String, key: String) async throws -> [String: Any] {
        let answer = try await h.internal.postJSON("/version/v1/tans/reserve", ["tans": [tan], "reservationKeys": [key]])
        return try #require((answer.json["outcomes"] as? [[String: Any]])?.first)
    }

    static func confirm(_ h: VerificationHarness, key: String) async throws -> TestResponse {
        try await h.internal.postJSON("/version/v1/tans/confirm", ["reservationKeys": [key]])
    }

    @Test(arguments: TestDatabase.all)
    func reservationsAndConfirmationsNameTheTANsFamilyAndRegion(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            // A PIN of the deployment's region (the portal's), and one of an issuer bound to another region.
            let portalToken = try #require(try await h.redeemCode("PROTEGO", try await h.newCode("PROTEGO")).json["uploadToken"] as? String)
            let issuer = try await h.addIssuer("gis-xx", kind: "protego", region: "XX")
            let pin = try #require(try await h.callable("/generateCode", #"{"data":{}}"#, token: issuer).json["result"] as? String)
            let issuersToken = try #require(try await h.redeemCode("PROTEGO", pin).json["uploadToken"] as? String)
            let guidTAN = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let registration = try await h.register(teleTAN: try await h.newTeleTAN())
            let teleTANsToken = try #require(registration.json["registrationToken"] as? String)
            let teleTANsTAN = try #require(try await h.tan(teleTANsToken).json["tan"] as? String)

            let cases: [(tan: String, source: String, region: String?)] = [
                (portalToken, "PROTEGO", "PL"), (issuersToken, "PROTEGO", "XX"), (guidTAN, "GUID", nil), (teleTANsTAN, "TELETAN", nil),
            ]
            for (index, expected) in cases.enumerated() {
                let key = TanStoreReservationTests.key("origin-\(index)")
                let reserved = try await Self.reserve(h, expected.tan, key: key)
                #expect(reserved["outcome"] as? String == "reserved")
                #expect(reserved["source"] as? String == expected.source)
                #expect(reserved["region"] as? String == expected.region)
                let confirmed = try await Self.confirm(h, key: key)
                #expect(confirmed.json["outcomes"] as? [String] == ["confirmed"])
                let origin = try #require((confirmed.json["origins"] as? [[String: Any]])?.first)
                #expect(origin["source"] as? String == expected.source && origin["region"] as? String == expected.region)
                // A repeat of the upload: `confirmed`, with the same origin.
                let again = try await Self.reserve(h, expected.tan, key: key)
                #expect(again["outcome"] as? String == "confirmed" && again["source"] as? String == expected.source)
            }
            // A lapsed key has an empty origin.
            let lapsed = try await Self.confirm(h, key: TanStoreReservationTests.key("nothing"))
            #expect(lapsed.json["outcomes"] as? [String] == ["lapsed"])
            #expect((lapsed.json["origins"] as? [[String: Any]])?.first?.isEmpty == true)
        }
    }

    /// The one-phase verification (`/tan/verify`, `/tans/verify`) is the Corona-Warn-App's: a ProteGO access token
    /// is answered there as an unknown TAN, and is not spent.
    @Test(arguments: TestDatabase.all)
    func theOnePhaseVerificationDoesNotFindAnotherFamilysTAN(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try #require(try await h.redeemCode("PROTEGO", try await h.newCode("PROTEGO")).json["uploadToken"] as? String)
            let foreign = try await h.verify(token)
            let unknown = try await h.verify(Codes.uuidV4(using: SystemRandomSource()))
            foreign.expectError(404, "tan_not_found")
            #expect(foreign.body == unknown.body)
            let batch = try await h.internal.postJSON("/version/v1/tans/verify", ["tans": [token]])
            #expect((batch.json["verdicts"] as? [[String: Any]])?.first?["valid"] as? Bool == false)
            #expect(try await h.redeemedTANs() == 0)
            // Still good for its own family's two-phase upload.
            #expect(try await Self.reserve(h, token, key: TanStoreReservationTests.key("home"))["outcome"] as? String == "reserved")
        }
    }
}
