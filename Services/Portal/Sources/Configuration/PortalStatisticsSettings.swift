import ExposureCore
import Foundation

/// Where the portal reads the services' statistics (docs/statistics.md): each service's management listener, with
/// the portal's reader token.
public struct PortalStatisticsSettings: Sendable {
    /// The portal's token among the services' `STATISTICS_API_TOKENS` (`STATISTICS_API_TOKEN`); without it the
    /// statistics page says that it is not configured.
    public var token: String?
    /// The services whose statistics the page shows, in order, at their management listener:
    /// `VERIFICATION_STATISTICS_URL` (default `http://localhost:8012`, beside `VERIFICATION_URL`'s default), and
    /// `TESTRESULT_STATISTICS_URL` and `SUBMISSION_STATISTICS_URL`, shown when set (the portal calls neither service
    /// otherwise).
    public var sources: [(service: String, url: URL)]

    public init(_ settings: Settings) throws(ConfigurationError) {
        token = try ServiceTokens.callerToken(settings, variable: "STATISTICS_API_TOKEN")
        sources = [(service: "verification", url: try settings.url("VERIFICATION_STATISTICS_URL", default: "http://localhost:8012"))]
        for (service, variable) in [("testresult", "TESTRESULT_STATISTICS_URL"), ("submission", "SUBMISSION_STATISTICS_URL")] where try settings.raw(variable) != nil {
            sources.append((service: service, url: try settings.url(variable, default: "")))
        }
    }
}
