import Foundation

/// One key of a `/v1/publish` request as the phone sent it: the `key` text exactly as sent (the certificate's HMAC is
/// over that text, not over a re-encoding), its start interval, period and transmission risk (0 when absent).
public struct ENXPublishedKey: Sendable, Equatable {
    public var key: String
    public var rollingStartNumber: Int64
    public var rollingPeriod: Int64
    public var transmissionRisk: Int64

    public init(key: String, rollingStartNumber: Int64, rollingPeriod: Int64, transmissionRisk: Int64 = 0) {
        self.key = key
        self.rollingStartNumber = rollingStartNumber
        self.rollingPeriod = rollingPeriod
        self.transmissionRisk = transmissionRisk
    }
}
