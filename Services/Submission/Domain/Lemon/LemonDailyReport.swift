import Foundation

/// Reads a JHU CSSE COVID-19 daily report (`csse_covid_19_daily_reports/MM-DD-YYYY.csv`, the dataset the seed's
/// statistics came from through Google BigQuery): one row per region with `Country_Region` (or `Country/Region`),
/// `Last_Update`, `Confirmed`, `Deaths`, `Recovered`. Regions add up to their country; every row adds up to the world.
/// Countries the catalog does not list count only towards the world.
public struct LemonDailyReport: Sendable {
    public enum Failure: Error, Equatable {
        case missingColumn(String)
        case noDay
    }

    /// JHU's names where they are not the catalog's.
    static let aliases: [String: String] = [
        "us": "US", "uk": "GB", "korea, south": "KR", "mainland china": "CN", "czechia": "CZ", "taiwan*": "TW", "russia": "RU",
    ]

    public let catalog: LemonCatalog

    public init(catalog: LemonCatalog) {
        self.catalog = catalog
    }

    /// The counts per country and for the world, of `day` or else of the latest `Last_Update` in the file.
    public func parse(_ text: String, day: String? = nil) throws(Failure) -> [LemonDailyCount] {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw .missingColumn("Country_Region") }
        let header = Self.fields(lines.removeFirst()).map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\u{FEFF}"]) }
        func column(_ names: String...) throws(Failure) -> Int {
            guard let index = header.firstIndex(where: { names.contains($0) }) else { throw .missingColumn(names[0]) }
            return index
        }
        let country = try column("Country_Region", "Country/Region")
        let confirmed = try column("Confirmed")
        let deaths = try column("Deaths")
        let recovered = try column("Recovered")
        let updated = try column("Last_Update", "Last Update")
        var totals: [String: (Int64, Int64, Int64)] = [:]
        var latest: String?
        for line in lines {
            let row = Self.fields(line)
            guard row.count > max(country, confirmed, deaths, recovered, updated) else { continue }
            let counts = (Self.count(row[confirmed]), Self.count(row[deaths]), Self.count(row[recovered]))
            let rowDay = String(row[updated].prefix(10))
            if rowDay.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil, rowDay > (latest ?? "") { latest = rowDay }
            var keys = [LemonDailyCount.global]
            if let code = alpha2(row[country]) { keys.append(code) }
            for key in keys {
                let sum = totals[key] ?? (0, 0, 0)
                totals[key] = (sum.0 + counts.0, sum.1 + counts.1, sum.2 + counts.2)
            }
        }
        guard let day = day ?? latest else { throw .noDay }
        return totals.keys.sorted().map { key in
            let sum = totals[key]!
            return LemonDailyCount(country: key, day: day, contracted: sum.0, deaths: sum.1, recovered: sum.2)
        }
    }

    func alpha2(_ name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if let alias = Self.aliases[trimmed.lowercased()] { return catalog.country(alias)?.alpha2 }
        return catalog.countries.first { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }?.alpha2
    }

    static func count(_ text: String) -> Int64 {
        Int64(text.trimmingCharacters(in: .whitespaces)) ?? Int64(Double(text.trimmingCharacters(in: .whitespaces)) ?? 0)
    }

    /// One CSV line's fields: commas separate, double quotes enclose, `""` is a quote.
    static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            switch character {
            case "\"" where quoted:
                // A doubled quote inside quotes is one quote; a single one ends the quoted part.
                var lookahead = iterator
                if lookahead.next() == "\"" {
                    current.append("\"")
                    iterator = lookahead
                } else {
                    quoted = false
                }
            case "\"": quoted = true
            case "," where !quoted:
                fields.append(current)
                current = ""
            default: current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
