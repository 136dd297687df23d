import ExposureCore
import ExposureStatistics
import Foundation
import Logging

/// The services' statistics APIs as the portal reads them: one generated client per service (`StatisticsClient`).
struct StatisticsSources: Sendable {
    /// What one service answered for a period.
    struct Answer: Sendable {
        let service: String
        /// nil when the service could not be read.
        let counts: [DailyCount]?

        /// The same answer with only the counts `isIncluded` keeps.
        func keeping(_ isIncluded: (DailyCount) -> Bool) -> Answer {
            Answer(service: service, counts: counts?.filter(isIncluded))
        }
    }

    /// Empty when the portal has no reader token.
    let clients: [StatisticsClient]

    init(settings: PortalStatisticsSettings, policy: DownstreamPolicy, http: DownstreamHTTPClient, logger: Logger) {
        guard let token = settings.token else {
            clients = []
            return
        }
        clients = settings.sources.map {
            StatisticsClient(service: $0.service, baseURL: $0.url, token: token, policy: policy, http: http, logger: logger)
        }
    }

    var isConfigured: Bool { !clients.isEmpty }

    /// Every service's counts of the days from `from` through `to`, asked at once.
    func counts(from: StatisticsDay, through to: StatisticsDay) async -> [Answer] {
        await withTaskGroup(of: (Int, Answer).self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    (index, Answer(service: client.service, counts: try? await client.counts(from: from, through: to)))
                }
            }
            var answers: [(Int, Answer)] = []
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
