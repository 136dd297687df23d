/// A request path under one of the CovidShield retrieval prefixes, matched as the reference's gorilla/mux routes
/// matched it: `/retrieve-day/{date:[0-9]{4}-[0-9]{2}-[0-9]{2}}/{auth:.*}`,
/// `/retrieve-hour/{date:…}/{hour:[0-9]{2}}/{auth:.*}` and `/exposure-configuration/{region:[\w]+}.json`. The HMAC
/// segment takes the rest of the path, slashes included, and may be empty; a path under a prefix that matches no
/// pattern was the router's `404 page not found`.
enum CovidShieldRoute: Equatable {
    case day(date: String, hmac: String)
    case hour(date: String, hour: String, hmac: String)
    case configuration(region: String)
    /// Under a CovidShield prefix, but no route of the reference's.
    case unmatched

    static let dayPrefix = "/retrieve-day"
    static let hourPrefix = "/retrieve-hour"
    static let configurationPrefix = "/exposure-configuration"

    /// Nil for a path outside the three prefixes (the service's other routes).
    init?(path: String) {
        if let rest = Self.rest(of: path, under: Self.dayPrefix) {
            guard let (date, after) = Self.date(rest), let hmac = after.first == "/" ? after.dropFirst() : nil else {
                self = .unmatched
                return
            }
            self = .day(date: date, hmac: String(hmac))
        } else if let rest = Self.rest(of: path, under: Self.hourPrefix) {
            guard let (date, after) = Self.date(rest), after.first == "/",
                  case let tail = after.dropFirst(), tail.count >= 3, tail.prefix(2).allSatisfy(Self.isDigit),
                  tail.dropFirst(2).first == "/"
            else {
                self = .unmatched
                return
            }
            self = .hour(date: date, hour: String(tail.prefix(2)), hmac: String(tail.dropFirst(3)))
        } else if let rest = Self.rest(of: path, under: Self.configurationPrefix) {
            guard rest.hasSuffix(".json"), case let region = rest.dropLast(".json".count), !region.isEmpty,
                  region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
            else {
                self = .unmatched
                return
            }
            self = .configuration(region: String(region))
        } else {
            return nil
        }
    }

    /// What follows `prefix/` in `path`; "" for the prefix alone (no route of the reference either); nil for a path
    /// outside the prefix.
    private static func rest(of path: String, under prefix: String) -> Substring? {
        guard path.hasPrefix(prefix) else { return nil }
        let after = path.dropFirst(prefix.count)
        if after.isEmpty { return after }
        return after.first == "/" ? after.dropFirst() : nil
    }

    /// `YYYY-MM-DD` as digits and dashes (its calendar validity is the rules' to judge), and what follows it.
    private static func date(_ text: Substring) -> (String, Substring)? {
        let candidate = text.prefix(10)
        guard candidate.count == 10 else { return nil }
        for (index, character) in candidate.enumerated() {
            let fits = index == 4 || index == 7 ? character == "-" : isDigit(character)
            guard fits else { return nil }
        }
        return (String(candidate), text.dropFirst(10))
    }

    private static func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }
}
