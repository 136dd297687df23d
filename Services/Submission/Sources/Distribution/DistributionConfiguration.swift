import ExposureCore
import ExposureProtocol
import Foundation
import SubmissionCore
import SubmissionDomain

/// The distribution job's settings (see docs/operations.md, "Distribution").
public struct DistributionConfiguration: Sendable {
    /// Where the CDN tree is written (`EXPORT_DIR`, default `data/exports`) unless it goes to an object store;
    /// the lock that keeps two runs apart on SQLite is a file here in either case.
    public var exportDirectory: URL
    /// The S3-compatible store the tree is published to instead (`EXPORT_S3_*`); nil = `exportDirectory`.
    public var objectStore: ObjectStoreConfiguration?
    /// `SIGNING_KEY_FILE` (required to sign), `SIGNATURE_*` and `SIGNING_ADDITIONAL_KEY_FILES`: the keys that sign
    /// every file and the app configuration.
    public var signing: ExportSigningKeys
    public var country: String
    public var minimumRiskLevel: Int
    public var lookbackDays: Int
    public var shiftingThreshold: Int
    public var expiryDelayMinutes: Int
    public var maxKeysPerFile: Int
    public var dailyRetentionDays: Int
    public var appConfigurationJSON: String
    /// How often `serve` runs the job (`DISTRIBUTION_INTERVAL`, default 1h; `0` = never, run `distribute` instead).
    public var interval: Duration
    /// Whether `serve` answers GET for the tree (`SERVE_EXPORTS`).
    public var serveExports: Bool
    /// Publish the running hour too (`DISTRIBUTION_INCLUDE_INCOMPLETE_HOURS`; development and demos only).
    public var includeIncompleteHours: Bool

    /// - Parameter country: the home country (`HOME_COUNTRY`, validated by `SubmissionConfiguration`): the export region.
    public init(_ settings: Settings, country: String, serveExportsByDefault: Bool = false) throws(ConfigurationError) {
        includeIncompleteHours = try settings.bool("DISTRIBUTION_INCLUDE_INCOMPLETE_HOURS", default: false)
        let data = try settings.string("DATA_DIR", default: "data")
        exportDirectory = URL(fileURLWithPath: try settings.string("EXPORT_DIR", default: data + "/exports"), isDirectory: true)
        objectStore = try ObjectStoreConfiguration(settings)
        signing = try ExportSigningKeys(
            settings, defaultAppBundleID: "de.rki.coronawarnapp", defaultKeyID: "262"
        )
        self.country = country
        minimumRiskLevel = try settings.int("DISTRIBUTION_MIN_RISK_LEVEL", default: 3, in: 1...8)
        lookbackDays = try settings.int("DISTRIBUTION_LOOKBACK_DAYS", default: 10, in: 1...14)
        shiftingThreshold = try settings.int("SHIFTING_THRESHOLD", default: 140, in: 1...1_000_000)
        expiryDelayMinutes = try settings.int("EXPIRY_DELAY_MINUTES", default: 120, in: 0...1440)
        maxKeysPerFile = try settings.int("MAX_KEYS_PER_FILE", default: 600_000, in: 1...10_000_000)
        dailyRetentionDays = try settings.int("EXPORT_RETENTION_DAYS", default: 14, in: 1...60)
        if let path = try settings.file("APP_CONFIG_FILE", holds: .publicData) {
            guard let json = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError(variable: "APP_CONFIG_FILE", reason: "names \(path), which cannot be read")
            }
            do {
                _ = try AppConfigurationFile.parse(json: json)
            } catch {
                throw ConfigurationError(variable: "APP_CONFIG_FILE", reason: "is not a valid ApplicationConfiguration in JSON: \(error)")
            }
            appConfigurationJSON = json
        } else {
            appConfigurationJSON = AppConfigurationFile.defaultJSON
        }
        interval = try settings.duration("DISTRIBUTION_INTERVAL", default: .seconds(3600))
        // `serve`'s routes read the local directory, which stays empty when the tree goes to a store.
        serveExports = try settings.bool("SERVE_EXPORTS", default: serveExportsByDefault && objectStore == nil)
        if serveExports, objectStore != nil {
            throw ConfigurationError(variable: "SERVE_EXPORTS", reason: "cannot serve the tree from EXPORT_DIR while it is published to an object store (EXPORT_S3_ENDPOINT): let the store or its CDN serve it")
        }
    }

    /// Where runs publish the tree.
    public var tree: any ExportTreeStore {
        if let objectStore { return objectStore.tree }
        return ExportTreeWriter(root: exportDirectory)
    }

    public var layout: ExportTreeLayout { ExportTreeLayout(country: country) }

    public var planner: DistributionPlanner {
        var planner = DistributionPlanner(
            layout: layout,
            expiry: ExpiryPolicy(delayMinutes: Int64(expiryDelayMinutes)),
            shifting: ShiftingPolicy(threshold: shiftingThreshold),
            dailyRetentionDays: Int64(dailyRetentionDays)
        )
        planner.includeIncompleteHours = includeIncompleteHours
        return planner
    }
}
