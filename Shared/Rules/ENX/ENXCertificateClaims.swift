import Foundation

/// The claims of an ENX verification certificate (docs/enx.md): the verification server signs them for a phone that
/// verified a code, and the key server checks them, offline, before it accepts the keys they were issued for. They say
/// what kind of report the keys are, when symptoms began, and bind the certificate to those keys (`tekmac`).
public struct ENXCertificateClaims: Sendable, Equatable, Codable {
    /// The key server it is meant for (a JSON string, never an array: the reference key server reads nothing else).
    public var aud: String
    /// Unix seconds.
    public var exp: Int64
    public var iat: Int64
    /// Who signed it: the key server finds the authority, and so its audience and public keys, by this.
    public var iss: String
    public var nbf: Int64
    /// One of `ENXReportType`'s words; kept as text so that a certificate naming another is read and then refused.
    public var reportType: String
    /// The 10-minute interval of the UTC midnight of the symptom date; absent without one.
    public var symptomOnsetInterval: UInt32?
    /// The phone's `ekeyhmac`, verbatim (base64).
    public var tekmac: String

    public init(
        aud: String, exp: Int64, iat: Int64, iss: String, nbf: Int64, reportType: String, symptomOnsetInterval: UInt32?, tekmac: String
    ) {
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.iss = iss
        self.nbf = nbf
        self.reportType = reportType
        self.symptomOnsetInterval = symptomOnsetInterval
        self.tekmac = tekmac
    }

    /// The reference back-dates `iat` and `nbf` by this much, for key servers whose clocks run a little behind.
    public static let backdating: Int64 = 5

    /// The claims of a certificate issued at `now` for `lifetime` seconds: issued and valid from `backdating` seconds
    /// before, as the reference does.
    public init(
        issuer: String, audience: String, now: Int64, lifetime: Int64, reportType: ENXReportType, symptomDate: UTCDay?, tekmac: String
    ) {
        self.init(
            aud: audience, exp: now + lifetime, iat: now - Self.backdating, iss: issuer, nbf: now - Self.backdating,
            reportType: reportType.rawValue, symptomOnsetInterval: symptomDate.map { UInt32($0.midnight / 600) }, tekmac: tekmac
        )
    }

    /// The claims as the certificate's JSON: the keys in the reference's (alphabetical) order, slashes not escaped.
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings and integers cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }
}
