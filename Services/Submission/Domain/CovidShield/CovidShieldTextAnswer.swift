/// A plain-text answer of the retrieval endpoints: the status and text the reference server (Go, gorilla/mux) gave
/// each case, written as its `http.Error` wrote them (the message and a line break).
public struct CovidShieldTextAnswer: Error, Sendable, Equatable {
    public let status: Int
    public let text: String

    public init(status: Int, text: String) {
        self.status = status
        self.text = text
    }

    public static let unauthorized = Self(status: 401, text: "unauthorized\n")
    public static let invalidDate = Self(status: 400, text: "invalid date parameter\n")
    public static let invalidHour = Self(status: 400, text: "invalid hour number\n")
    public static let useHourForToday = Self(status: 404, text: "use /retrieve-hour for today's data\n")
    public static let future = Self(status: 404, text: "cannot request future data\n")
    public static let expired = Self(status: 410, text: "requested data no longer valid\n")
    public static let useDay = Self(status: 404, text: "use /retrieve-day for data not from today or yesterday\n")
    public static let currentHour = Self(status: 404, text: "cannot serve data for current hour for privacy reasons\n")
    /// A method the route does not serve, once the HMAC and the date have passed.
    public static let methodNotAllowed = Self(status: 405, text: "method not allowed\n")
    /// A path no route matches (gorilla/mux's `NotFoundHandler`): a retrieval path without its HMAC, a date or hour
    /// of the wrong form, an exposure configuration of another region.
    public static let pageNotFound = Self(status: 404, text: "404 page not found\n")
}
