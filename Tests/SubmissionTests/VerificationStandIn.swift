import ExposureCore
import ExposureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A stand-in for the verification service's internal two-phase redemption (`POST /version/v1/tans/reserve`,
/// `/confirm`, `/release`), served over real HTTP through the core's listener, for tests that need failures on demand:
/// it can fail or hold the next requests, and counts the calls it gets. `RealVerificationStack` wires submission to
/// the real verification service, whose storage `TanStoreReservationTests` checks on both databases.
///
/// Its semantics are those of `openapi/verification.yaml`, except that leases never run out (tests of the lease use
/// the real service with a manual clock) and a confirmed TAN answers `confirmed` to its key for ever.
final class VerificationStandIn: @unchecked Sendable {
    static let name = "verification-stand-in"

    /// One issued TAN.
    private struct TAN {
        let teleTANType: String?
        /// What verification says the TAN was issued for: `source` and `region`, as JSON members.
        var origin = #""source":"GUID""#
        var holder: String?
        var spent = false
    }

    private let lock = NSLock()
    private var tans: [String: TAN] = [:]
    private var calls = 0
    private var callsByPath: [String: Int] = [:]
    /// Statuses to answer instead of working, each for any path (nil) or one path's last word.
    private var failures: [(path: String?, status: HTTPResponse.Status)] = []
    /// While set, every request is held (not answered) until the flag is: a stalled verification whose end the test
    /// decides, so that an answer that comes first provably did not wait for it.
    private var hold: Flag?
    private var bodies: [String] = []
    /// One-time codes of the app families (`POST /version/v1/codes/redeem`): region, issue time, spent.
    private var codes: [String: (region: String, issuedAt: Int64, spent: Bool)] = [:]
    /// The clock codes die by (10 minutes after issue); the harness gives it the service's.
    private var codeClock: any WallClock = SystemClock()

    /// A CovidShield code as the portal would issue it at verification, at the code clock's now unless told.
    func issueCode(_ code: String, region: String = "ON", issuedAt: Int64? = nil) {
        lock.withLock { codes[code] = (region, issuedAt ?? codeClock.now().epochSeconds, false) }
    }

    func useCodeClock(_ clock: any WallClock) { lock.withLock { codeClock = clock } }
    /// ProteGO PINs not yet redeemed.
    private var pins: Set<String> = []
    /// While set, failed PIN redemptions are answered 429 (verification's throttle).
    private var throttlePINs = false

    /// A new TAN that verification will let one upload spend; `origin` (JSON members, e.g. `"source":"PROTEGO",
    /// "region":"PL"`) says what it was issued for, a registered test (or a teleTAN, with a type) unless told.
    func issue(teleTANType: String? = nil, origin: String? = nil) -> String {
        let tan = Codes.uuidV4(using: SystemRandomSource())
        let origin = origin ?? (teleTANType == nil ? #""source":"GUID""# : #""source":"TELETAN""#)
        lock.withLock { tans[tan] = TAN(teleTANType: teleTANType, origin: origin) }
        return tan
    }

    /// A new ProteGO PIN that one redemption (`/version/v1/codes/redeem`) turns into an upload TAN.
    func issuePIN() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let pin = "A1" + String((0..<4).map { _ in alphabet.randomElement()! })
        lock.withLock { _ = pins.insert(pin) }
        return pin
    }

    /// Unknown PINs are answered 429 from now on (or again 404).
    func throttleFailedRedemptions(_ on: Bool) { lock.withLock { throttlePINs = on } }

    /// How many requests arrived (a batch is one).
    var callCount: Int { lock.withLock { calls } }

    /// How many requests arrived on one path's last word (`reserve`, `confirm`, `release`).
    func callCount(_ path: String) -> Int { lock.withLock { callsByPath[path, default: 0] } }

    /// The bodies of the requests that arrived, in order, as text.
    var requestBodies: [String] { lock.withLock { bodies } }

    /// Whether the TAN has been spent.
    func isSpent(_ tan: String) -> Bool { lock.withLock { tans[tan]?.spent ?? false } }

    /// Whether an upload holds the TAN without having spent it.
    func isReserved(_ tan: String) -> Bool { lock.withLock { tans[tan].map { $0.holder != nil && !$0.spent } ?? false } }

    /// The next requests (to `path` only, when given: `reserve`, `confirm`, `release`) are answered with these
    /// statuses, without touching any TAN.
    func failNext(_ statuses: [HTTPResponse.Status], on path: String? = nil) {
        lock.withLock { failures = statuses.map { (path, $0) } }
    }

    /// Every request from now on is held until `release` is set (for at most a minute, so that a test that forgets
    /// does not hang).
    func hold(until release: Flag) { lock.withLock { hold = release } }

    func bundle() -> ServiceBundle {
        let router = TestServices.standInRouter(Self.name)
        for path in ["reserve", "confirm", "release"] {
            router.post("/version/v1/tans/\(path)") { request, _ -> Response in
                let data = try await request.body.collect(upTo: 100_000)
                let body = try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any] ?? [:]
                let (hold, answer) = self.answer(path, body: body, text: String(buffer: data))
                if let hold {
                    try await hold.wait(limit: .seconds(60))
                }
                return answer
            }
        }
        router.post("/version/v1/codes/redeem") { request, _ -> Response in
            let data = try await request.body.collect(upTo: 100_000)
            let body = try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any] ?? [:]
            return self.answer("redeem", body: body, text: String(buffer: data)).1
        }
        return TestServices.standIn(Self.name, listener: "internal", router: router)
    }

    private func answer(_ path: String, body: [String: Any], text: String) -> (Flag?, Response) {
        lock.withLock {
            calls += 1
            callsByPath[path, default: 0] += 1
            bodies.append(text)
            if let failure = failures.first, failure.path == nil || failure.path == path {
                failures.removeFirst()
                if path == "redeem" {
                    // The contract's error body, which the generated client decodes for 429 and 500.
                    let buffer = ByteBuffer(string: #"{"error":"rate_limited","message":"Too many failed redemptions."}"#)
                    return (hold, Response(status: failure.status, headers: [.contentType: "application/json"], body: .init(byteBuffer: buffer)))
                }
                return (hold, Response(status: failure.status))
            }
            if path == "redeem" { return (hold, redeem(body)) }
            let keys = body["reservationKeys"] as? [String] ?? []
            let json: String
            switch path {
            case "reserve":
                let tans = body["tans"] as? [String] ?? []
                json = #"{"outcomes":["# + zip(tans, keys).map { reserve($0, key: $1) }.joined(separator: ",") + "]}"
            case "confirm":
                let confirmed = keys.map { confirm($0) }
                json = #"{"outcomes":["# + confirmed.map { #""\#($0 == nil ? "lapsed" : "confirmed")""# }.joined(separator: ",")
                    + #"],"origins":["# + confirmed.map { "{\($0 ?? "")}" }.joined(separator: ",") + "]}"
            default:
                json = #"{"outcomes":["# + keys.map { #""\#(release($0))""# }.joined(separator: ",") + "]}"
            }
            let buffer = ByteBuffer(string: json)
            return (hold, Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: buffer)))
        }
    }

    /// `redeemOneTimeCode` as verification answers it, for either kind; called under the lock.
    private func redeem(_ body: [String: Any]) -> Response {
        body["kind"] as? String == "PROTEGO" ? redeemPIN(body) : redeemCovidShield(body)
    }

    /// Spends a live CovidShield code (404 `unknown_code` for anything else), as verification's contract says.
    private func redeemCovidShield(_ body: [String: Any]) -> Response {
        let code = body["code"] as? String ?? ""
        guard body["kind"] as? String == "COVIDSHIELD", let entry = codes[code], !entry.spent,
              codeClock.now().epochSeconds < entry.issuedAt + 600
        else {
            let buffer = ByteBuffer(string: #"{"error":"unknown_code","message":"Unknown, used or expired code."}"#)
            return Response(status: .notFound, headers: [.contentType: "application/json"], body: .init(byteBuffer: buffer))
        }
        codes[code]?.spent = true
        let buffer = ByteBuffer(string: #"{"region":"\#(entry.region)","issuedAt":\#(entry.issuedAt)}"#)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: buffer))
    }

    /// `redeemOneTimeCode` for kind PROTEGO: the PIN is spent and a TAN minted, as verification does.
    private func redeemPIN(_ body: [String: Any]) -> Response {
        let code = body["code"] as? String ?? ""
        guard pins.remove(code) != nil else {
            let status: HTTPResponse.Status = throttlePINs ? .tooManyRequests : .notFound
            let json = #"{"error":"\#(throttlePINs ? "rate_limited" : "unknown_code")","message":"no"}"#
            return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        let tan = Codes.uuidV4(using: SystemRandomSource())
        tans[tan] = TAN(teleTANType: nil, origin: #""source":"PROTEGO","region":"PL""#)
        let json = #"{"region":"PL","issuedAt":1591016400,"uploadToken":"\#(tan)"}"#
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    private func reserve(_ tan: String, key: String) -> String {
        guard var entry = tans[tan] else { return #"{"outcome":"refused"}"# }
        let type = (entry.teleTANType.map { #","teleTanType":"\#($0)""# } ?? "") + "," + entry.origin
        if entry.spent { return entry.holder == key ? #"{"outcome":"confirmed"\#(type)}"# : #"{"outcome":"refused"}"# }
        if let holder = entry.holder, holder != key { return #"{"outcome":"busy","retryAfterSeconds":180}"# }
        entry.holder = key
        tans[tan] = entry
        return #"{"outcome":"reserved"\#(type)}"#
    }

    /// The spent TAN's origin members, or nil when the key holds none.
    private func confirm(_ key: String) -> String? {
        guard let (tan, entry) = tans.first(where: { $0.value.holder == key }) else { return nil }
        tans[tan]?.spent = true
        return entry.origin
    }

    private func release(_ key: String) -> String {
        guard let (tan, entry) = tans.first(where: { $0.value.holder == key }) else { return "released" }
        if entry.spent { return "confirmed" }
        tans[tan]?.holder = nil
        return "released"
    }
}
