import ExposureCore
import ExposureProtocol

/// The CovidShield adapter's counts, published per finished hour like the CWA upload's (`HourlyTally`,
/// `SubmissionMetrics`): by the error enum each claim and upload was answered with, and the keys stored.
struct CovidShieldMetrics: Sendable {
    let tally: HourlyTally

    func claim(_ code: Covidshield_KeyClaimResponse.ErrorCode, throttled: Bool = false) {
        tally.count(.init("covidshield_claims_last_hour", [("outcome", throttled ? "throttled" : Self.name(code))]))
    }

    func upload(_ code: Covidshield_EncryptedUploadResponse.ErrorCode, keysStored: Int) {
        tally.count(.init("covidshield_uploads_last_hour", [("outcome", Self.name(code))]))
        tally.count(.init("covidshield_keys_stored_last_hour"), by: keysStored)
    }

    /// The enum case's name (`invalidKeypair`), a fixed set of label values.
    static func name(_ code: some Sendable) -> String { String(describing: code) }
}
