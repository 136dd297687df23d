import Crypto
import ExposureRules
import Foundation

/// Derives the redemption key a submission sends with its TAN (`RedemptionKey` in openapi/verification.yaml).
///
/// The same TAN with the same keys gives the same redemption key, so a submission sent again is, at verification, a
/// repeat of the first, which verification answers as it answered the first. That covers our own retry after a lost
/// answer (a proxy's 504, a connection closed after verification's handler ran) and the app's retry after a 5xx whose
/// keys were rolled back once the TAN was spent. A repeat stores nothing twice: the keys are unique per submission
/// type. A submission with other keys is another use of the TAN and is refused, as before.
///
/// The key is an HMAC under a secret of the submission service (`RedemptionSecretStore`). Verification sees TANs but
/// not the secret, so it cannot test a guessed set of published keys against the redemption keys it stores.
public struct RedemptionKeyDeriver: Sendable {
    private let secret: SymmetricKey

    public init(secret: [UInt8]) {
        self.secret = SymmetricKey(data: secret)
    }

    public func key(for tan: String, keys: [DiagnosisKey]) -> String {
        // The order of the keys in the payload does not matter; each field is length-prefixed or fixed-width, so
        // no two different submissions share an encoding.
        var encoding: [UInt8] = []
        Self.append(Array(tan.utf8), to: &encoding)
        Self.append(UInt32(keys.count), to: &encoding)
        for key in keys.sorted(by: { $0.keyData.lexicographicallyPrecedes($1.keyData) }) {
            Self.append(Array(key.keyData), to: &encoding)
            for field in [key.rollingStartIntervalNumber, key.rollingPeriod, key.transmissionRiskLevel,
                          key.daysSinceOnsetOfSymptoms, key.reportType, key.submissionType] {
                Self.append(UInt32(bitPattern: field), to: &encoding)
            }
            Self.append(Array(key.originCountry.utf8), to: &encoding)
            Self.append(Array(key.visitedCountries.joined(separator: ",").utf8), to: &encoding)
            encoding.append(key.consentToFederation ? 1 : 0)
        }
        return Array(HMAC<SHA256>.authenticationCode(for: encoding, using: secret)).prefix(16).hexString
    }

    private static func append(_ value: UInt32, to encoding: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { encoding.append(contentsOf: $0) }
    }

    private static func append(_ bytes: [UInt8], to encoding: inout [UInt8]) {
        append(UInt32(bytes.count), to: &encoding)
        encoding.append(contentsOf: bytes)
    }
}
