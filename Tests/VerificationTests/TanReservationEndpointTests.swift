import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// The two-phase redemption over HTTP, as the submission service calls it on the internal listener: each documented
/// answer of `/version/v1/tans/reserve`, `/confirm` and `/release`, with its JSON error, and what a refused request
/// leaves of a reservation (nothing changed).
@Suite struct TanReservationEndpointTests {
    static let reserve = "/version/v1/tans/reserve"
    static let confirm = "/version/v1/tans/confirm"
    static let release = "/version/v1/tans/release"

    /// Reserving holds the TAN for its key, confirming spends it, releasing a confirmed key says so.
    @Test(arguments: TestDatabase.all)
    func aTANIsReservedConfirmedAndReportedOverHTTP(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let tan = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let held = TanStoreReservationTests.key("held")
            let reserved = try await h.internal.postJSON(Self.reserve, ["tans": [tan], "reservationKeys": [held]])
            Covers.status(200, of: "POST /version/v1/tans/reserve", reserved)
            #expect(Self.outcomes(reserved) == ["reserved"])
            #expect(try await h.redeemedTANs() == 0)

            let confirmed = try await h.internal.postJSON(Self.confirm, ["reservationKeys": [held]])
            Covers.status(200, of: "POST /version/v1/tans/confirm", confirmed)
            #expect(confirmed.json["outcomes"] as? [String] == ["confirmed"])
            #expect(try await h.redeemedTANs() == 1)

            let released = try await h.internal.postJSON(Self.release, ["reservationKeys": [held, TanStoreReservationTests.key("never")]])
            Covers.status(200, of: "POST /version/v1/tans/release", released)
            #expect(released.json["outcomes"] as? [String] == ["confirmed", "released"])
            // Spent: the single verification refuses it now.
            #expect(try await h.verify(tan).status == 404)
        }
    }

    /// Malformed, unauthenticated, oversized, overfull and non-JSON requests are refused with their JSON error, and
    /// none of them touches the reservation they name: it still holds its TAN, and its confirmation spends it.
    @Test(arguments: TestDatabase.all)
    func refusedRequestsLeaveTheReservationAsItWas(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let tan = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let held = TanStoreReservationTests.key("held")
            let thief = TanStoreReservationTests.key("thief")
            #expect(Self.outcomes(try await h.internal.postJSON(Self.reserve, ["tans": [tan], "reservationKeys": [held]])) == ["reserved"])

            let padding = String(repeating: "a", count: 10_001)
            let overfullKeys = (0...TanVerificationBatch.maxTANs).map { TanStoreReservationTests.key("k\($0)") }
            let bodies: [(path: String, valid: [String: Any], invalid: [String: Any], overfull: [String: Any])] = [
                (Self.reserve, ["tans": [tan], "reservationKeys": [thief]], ["tans": [tan], "reservationKeys": [thief, thief]],
                 ["tans": overfullKeys.map { _ in tan }, "reservationKeys": overfullKeys]),
                (Self.confirm, ["reservationKeys": [held]], ["reservationKeys": [String]()], ["reservationKeys": [held] + overfullKeys]),
                (Self.release, ["reservationKeys": [held]], ["reservationKeys": [held.uppercased()]], ["reservationKeys": [held] + overfullKeys]),
            ]
            let bare = TestHTTPClient(port: h.internal.port)
            var (invalid, noCaller, tooLarge, tooMany, notJSON) = ([TestResponse](), [TestResponse](), [TestResponse](), [TestResponse](), [TestResponse]())
            for (path, valid, wrong, overfull) in bodies {
                invalid.append(try await h.internal.postJSON(path, wrong))
                noCaller.append(try await bare.postJSON(path, valid))
                tooLarge.append(try await h.internal.postJSON(path, valid.merging(["padding": padding]) { $1 }))
                tooMany.append(try await h.internal.postJSON(path, overfull))
                let json = try JSONSerialization.data(withJSONObject: valid)
                notJSON.append(try await h.internal.postRaw(path, Array(json), contentType: "text/plain"))
            }
            Covers.status(400, of: "POST /version/v1/tans/reserve", among: invalid, error: "invalid_redemption_key")
            Covers.status(400, of: "POST /version/v1/tans/confirm", among: invalid, error: "invalid_batch")
            Covers.status(400, of: "POST /version/v1/tans/release", among: invalid, error: "invalid_redemption_key")
            Covers.status(401, of: "POST /version/v1/tans/reserve", among: noCaller, error: "unknown_caller")
            Covers.status(401, of: "POST /version/v1/tans/confirm", among: noCaller, error: "unknown_caller")
            Covers.status(401, of: "POST /version/v1/tans/release", among: noCaller, error: "unknown_caller")
            Covers.status(406, of: "POST /version/v1/tans/reserve", among: tooLarge, error: "not_acceptable")
            Covers.status(406, of: "POST /version/v1/tans/confirm", among: tooLarge, error: "not_acceptable")
            Covers.status(406, of: "POST /version/v1/tans/release", among: tooLarge, error: "not_acceptable")
            Covers.status(413, of: "POST /version/v1/tans/reserve", among: tooMany, error: "too_many_tans")
            Covers.status(413, of: "POST /version/v1/tans/confirm", among: tooMany, error: "too_many_tans")
            Covers.status(413, of: "POST /version/v1/tans/release", among: tooMany, error: "too_many_tans")
            Covers.status(415, of: "POST /version/v1/tans/reserve", among: notJSON, error: "unsupported_media_type")
            Covers.status(415, of: "POST /version/v1/tans/confirm", among: notJSON, error: "unsupported_media_type")
            Covers.status(415, of: "POST /version/v1/tans/release", among: notJSON, error: "unsupported_media_type")

            // Nothing changed: the TAN is held for `held` only (another key is told it is busy), nothing is spent,
            // and the reservation's confirmation spends it now.
            #expect(Self.outcomes(try await h.internal.postJSON(Self.reserve, ["tans": [tan], "reservationKeys": [thief]])) == ["busy"])
            #expect(try await h.redeemedTANs() == 0)
            let confirmed = try await h.internal.postJSON(Self.confirm, ["reservationKeys": [held]])
            #expect(confirmed.json["outcomes"] as? [String] == ["confirmed"])
            #expect(try await h.redeemedTANs() == 1)
        }
    }

    /// A database that refuses the writes is a JSON 500 for each phase, and rolls each back: the held TAN stays held,
    /// the other stays free, and once the database works the reservation is confirmed as if nothing had happened.
    @Test(arguments: TestDatabase.all)
    func aDatabaseFailureIs500AndChangesNoReservation(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let first = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let second = try #require(try await h.tan(try await h.registeredToken(result: 2)).json["tan"] as? String)
            let held = TanStoreReservationTests.key("held")
            let other = TanStoreReservationTests.key("other")
            #expect(Self.outcomes(try await h.internal.postJSON(Self.reserve, ["tans": [first], "reservationKeys": [held]])) == ["reserved"])

            try await FailureInjection.fail(.update, on: "tans", in: h.database)
            let reserving = try await h.internal.postJSON(Self.reserve, ["tans": [second], "reservationKeys": [other]])
            Covers.status(500, of: "POST /version/v1/tans/reserve", reserving, error: "internal_error")
            let confirming = try await h.internal.postJSON(Self.confirm, ["reservationKeys": [held]])
            Covers.status(500, of: "POST /version/v1/tans/confirm", confirming, error: "internal_error")
            let releasing = try await h.internal.postJSON(Self.release, ["reservationKeys": [held]])
            Covers.status(500, of: "POST /version/v1/tans/release", releasing, error: "internal_error")
            try await FailureInjection.remove(from: "tans", in: h.database)

            #expect(try await h.redeemedTANs() == 0)
            #expect(Self.outcomes(try await h.internal.postJSON(Self.reserve, ["tans": [first, second], "reservationKeys": [other, TanStoreReservationTests.key("third")]])) == ["busy", "reserved"])
            #expect(try await h.internal.postJSON(Self.confirm, ["reservationKeys": [held]]).json["outcomes"] as? [String] == ["confirmed"])
            #expect(try await h.redeemedTANs() == 1)
        }
    }

    /// The `outcome` of each TAN of a reservation's answer.
    static func outcomes(_ response: TestResponse) -> [String] {
        (response.json["outcomes"] as? [[String: Any]] ?? []).compactMap { $0["outcome"] as? String }
    }
}
