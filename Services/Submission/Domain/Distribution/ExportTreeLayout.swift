import Foundation

/// The paths of the CDN tree, relative to its root (contract: "Tree"). On an object store a name is both a file
/// and a folder; on a filesystem the file's content is `<path>/index`, which `ExportTreeWriter` takes care of.
public struct ExportTreeLayout: Sendable, Equatable {
    public var country: String

    public init(country: String) { self.country = country }

    public var versionIndex: String { "version" }
    public var countryIndex: String { "version/v1/diagnosis-keys/country" }
    public var dateIndex: String { "version/v1/diagnosis-keys/country/\(country)/date" }
    public func day(_ date: String) -> String { "\(dateIndex)/\(date)" }
    public func hourIndex(_ date: String) -> String { "\(day(date))/hour" }
    public func hour(_ date: String, _ hour: Int) -> String { "\(hourIndex(date))/\(hour)" }
    /// Batch N > 1 of an over-large bundle (batch 1 is the bundle's own path).
    public func part(_ path: String, _ number: Int) -> String { "\(path)/part/\(number)" }
    /// The list of batch numbers of a split bundle, e.g. `[1, 2, 3]`.
    public func parts(_ path: String) -> String { "\(path)/parts" }
    public var appConfig: String { "version/v1/configuration/country/\(country)/app_config" }

    /// `yyyy-MM-dd` in UTC of a day number (days since the epoch).
    public static func date(day: Int64) -> String {
        let formatter = DateFormatter()
        formatter.calendar = Calendar(identifier: .iso8601)
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(day * 86400)))
    }
}
