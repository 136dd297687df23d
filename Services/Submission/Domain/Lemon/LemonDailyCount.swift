/// Case counts of one country (alpha-2, or `LemonDailyCount.global`) on one day (`YYYY-MM-DD`), cumulative.
public struct LemonDailyCount: Sendable, Equatable {
    public static let global = "GLOBAL"

    public let country: String
    public let day: String
    public let contracted: Int64
    public let deaths: Int64
    public let recovered: Int64

    public init(country: String, day: String, contracted: Int64, deaths: Int64, recovered: Int64) {
        self.country = country
        self.day = day
        self.contracted = contracted
        self.deaths = deaths
        self.recovered = recovered
    }
}
