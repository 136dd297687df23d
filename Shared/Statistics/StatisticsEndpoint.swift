import ExposureCore
import Foundation
import OpenAPIRuntime

/// The handler of `openapi/statistics.yaml`: a service's stored daily counts, as JSON or CSV.
public struct StatisticsEndpoint: APIProtocol {
    /// The longest range one request may ask for, in days.
    public static let maximumDays: Int64 = 366

    let service: String
    let store: DailyStatisticsStore
    /// The figures the service counts; a stored figure not among them is treated as app-side.
    let figures: [String: DailyFigure]
    let clock: any WallClock

    public init(service: String, store: DailyStatisticsStore, figures: [DailyFigure], clock: any WallClock) {
        self.service = service
        self.store = store
        self.figures = Dictionary(figures.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.clock = clock
    }

    public func getStatistics(_ input: Operations.getStatistics.Input) async throws -> Operations.getStatistics.Output {
        guard let from = StatisticsDay(input.query.from), let to = StatisticsDay(input.query.to) else {
            throw APIError.badRequest("from and to must be dates YYYY-MM-DD.", code: "invalid_range")
        }
        guard from <= to, to.number - from.number < Self.maximumDays else {
            throw APIError.badRequest("to must not be before from, and the range at most \(Self.maximumDays) days.", code: "invalid_range")
        }
        let counts = try await servedCounts(from: from, through: to)
        switch input.query.format ?? .json {
        case .csv:
            return .ok(.init(body: .csv(HTTPBody(StatisticsCSV.render(counts)))))
        case .json:
            let report = Components.Schemas.StatisticsReport(
                service: service, from: from.description, to: to.description, generatedAt: clock.now(),
                counts: counts.map { .init(day: $0.day.description, figure: $0.figure, breakdown: $0.breakdown, count: $0.count) }
            )
            return .ok(.init(body: .json(report)))
        }
    }

    /// The stored counts of the range without today's (and later days') counts of app-side figures.
    func servedCounts(from: StatisticsDay, through: StatisticsDay) async throws -> [DailyCount] {
        let today = StatisticsDay(of: clock.now())
        return try await store.counts(from: from, through: through).filter { count in
            count.day < today || figures[count.figure].map { !$0.isAppSide } == true
        }
    }
}
