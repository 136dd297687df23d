import ExposureRules

/// One key of a `/v1/publish` request as the phone sent it: the `key` text exactly as sent, its start interval, period
/// and transmission risk (0 when absent). It is the key the certificate's HMAC is over, so it is that HMAC's type.
public typealias ENXPublishedKey = ENXExposureKeyHMAC.Key
