import ExposureCore
import Foundation
import OpenAPIRuntime
import SubmissionDomain

extension LemonAPI {
    func getStatistics(_ input: Operations.getStatistics.Input) async throws -> Operations.getStatistics.Output {
        .ok(try await statistics(countries: input.query.countries))
    }

    func getGoogleStatistics(_ input: Operations.getGoogleStatistics.Input) async throws -> Operations.getGoogleStatistics.Output {
        .ok(try await statistics(countries: input.query.countries))
    }

    /// One object for one country or the world; a list for several, in the order asked. What no imported report
    /// covers yet is left out, so before the first import the answer is an empty list (the document knows no 404).
    private func statistics(countries: [String]?) async throws -> Components.Responses.Statistics {
        _ = try Self.device()
        let asked = countries ?? []
        var codes: [String] = []
        for code in asked {
            guard let country = catalog.country(code) else {
                throw APIError.badRequest("Every country must be the alpha-2 code of a supported country.", code: "invalid")
            }
            codes.append(country.alpha2)
        }
        let entries = try await (codes.isEmpty ? [LemonDailyCount.global] : codes).asyncMap { try await entry(country: $0) }.compactMap { $0 }
        let data: Components.Schemas.StatisticsEnvelope.DataPayload =
            codes.count <= 1 && entries.count == 1 ? .CountryStatistics(entries[0]) : .case2(entries)
        return .init(body: .json(.init(Data: data, Meta: .init(Success: true, Code: 200, Message: nil))))
    }

    /// Nil when no imported report covers the country yet.
    private func entry(country code: String) async throws -> Components.Schemas.CountryStatistics? {
        guard let latest = try await statistics.latest(country: code) else { return nil }
        let name = code == LemonDailyCount.global ? "Global" : catalog.country(code)?.name ?? code
        return .init(
            CountryName: name, ContractedCount: latest.count.contracted, DeathCount: latest.count.deaths,
            RecoveredCount: latest.count.recovered, Source: statisticsSource.name, SourceCreatedAt: "\(latest.count.day)T00:00:00",
            SourceUrl: statisticsSource.url, CreatedAt: String(Date.iso8601(latest.importedAt).dropLast())
        )
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
