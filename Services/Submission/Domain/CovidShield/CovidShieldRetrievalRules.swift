import Crypto
import ExposureRules
import Foundation

/// Who may retrieve what (covidshield.md, "GET /retrieve-day", "GET /retrieve-hour"): the HMAC first, then the date
/// and hour, each failure with its status and text.
public struct CovidShieldRetrievalRules: Sendable {
    /// Days back a day may be asked for (14 days ago is served, 15 is gone).
    public static let maxDaysBack: Int64 = 14

    let key: SymmetricKey

    /// - Parameter hmacKey: the secret shared with the apps (at least 32 bytes).
    public init(hmacKey: [UInt8]) {
        key = SymmetricKey(data: hmacKey)
    }

    /// The window of `GET /retrieve-day/{date}/{hmac}`.
    public func day(date: String, hmac: String, now: Date) throws(CovidShieldTextAnswer) -> CovidShieldRetrievalWindow {
        try authenticate(message: date, hmac: hmac, now: now)
        guard let day = Self.dayNumber(date) else { throw .invalidDate }
        let today = now.epochSeconds / 86_400
        if day == today { throw .useHourForToday }
        if day > today { throw .future }
        if today - day > Self.maxDaysBack { throw .expired }
        return CovidShieldRetrievalWindow(firstHour: day * 24, endHour: day * 24 + 24, now: now)
    }

    /// The window of `GET /retrieve-hour/{date}/{hour}/{hmac}`.
    public func hour(date: String, hour: String, hmac: String, now: Date) throws(CovidShieldTextAnswer) -> CovidShieldRetrievalWindow {
        try authenticate(message: "\(date):\(hour)", hmac: hmac, now: now)
        guard let day = Self.dayNumber(date) else { throw .invalidDate }
        guard hour.utf8.count <= 2, hour.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = Int64(hour), number < 24
        else { throw .invalidHour }
        let today = now.epochSeconds / 86_400
        guard day == today || day == today - 1 else { throw .useDay }
        let asked = day * 24 + number, current = now.epochSeconds / 3600
        if asked == current { throw .currentHour }
        if asked > current { throw .future }
        return CovidShieldRetrievalWindow(firstHour: asked, endHour: asked + 1, now: now)
    }

    /// The answer to a retrieval path asked with another method than GET: the reference checked the HMAC, then the
    /// date, then the method, so a wrong HMAC is still 401 and a bad date 400 before the method is refused.
    /// - Parameter hour: the hour segment of `/retrieve-hour`, nil for `/retrieve-day`.
    public func otherMethod(date: String, hour: String?, hmac: String, now: Date) -> CovidShieldTextAnswer {
        do {
            try authenticate(message: hour.map { "\(date):\($0)" } ?? date, hmac: hmac, now: now)
        } catch {
            return error
        }
        guard Self.dayNumber(date) != nil else { return .invalidDate }
        return .methodNotAllowed
    }

    /// The HMAC of `message:currentHour`, for the phone's hour being the server's, one before or one after. Compared
    /// in constant time; anything not 64 hex digits is simply wrong.
    func authenticate(message: String, hmac: String, now: Date) throws(CovidShieldTextAnswer) {
        guard hmac.utf8.count == 64, let given = [UInt8](hex: hmac) else { throw .unauthorized }
        let current = now.epochSeconds / 3600
        var matched = false
        for hour in (current - 1)...(current + 1) {
            let expected = HMAC<SHA256>.authenticationCode(for: Array("\(message):\(hour)".utf8), using: key)
            // Every candidate is computed and compared, so the time taken does not say which one matched.
            matched = Self.equal(Array(expected), given) || matched
        }
        guard matched else { throw .unauthorized }
    }

    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Days since the epoch of a strict `YYYY-MM-DD` (a real calendar date, UTC); nil otherwise.
    static func dayNumber(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return date.epochSeconds / 86_400
    }
}
