import ExposureStatistics
import Foundation

/// The portal's JSON download of statistics: the period and each service's counts.
struct StatisticsDownload: Encodable {
    struct Service: Encodable {
        let service: String
        let counts: [Count]
    }

    struct Count: Encodable {
        let day: String
        let figure: String
        let breakdown: String
        let count: Int64
    }

    let from: String
    let to: String
    let services: [Service]

    init(from: StatisticsDay, to: StatisticsDay, services: [(service: String, counts: [DailyCount])]) {
        self.from = from.description
        self.to = to.description
        self.services = services.map { service in
            Service(service: service.service, counts: service.counts.map {
                Count(day: $0.day.description, figure: $0.figure, breakdown: $0.breakdown, count: $0.count)
            })
        }
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
