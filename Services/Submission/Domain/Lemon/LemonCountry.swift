/// A country the LEMON API accepts in surveys and statistics, as `GET /api/v1/countries` answers it.
public struct LemonCountry: Codable, Sendable, Equatable {
    public let id: Int
    public let name: String
    public let alpha2: String
    public let timezone: String
    public let callingCode: String
    public let cultureInfo: String

    public init(id: Int, name: String, alpha2: String, timezone: String, callingCode: String, cultureInfo: String) {
        self.id = id
        self.name = name
        self.alpha2 = alpha2
        self.timezone = timezone
        self.callingCode = callingCode
        self.cultureInfo = cultureInfo
    }
}
