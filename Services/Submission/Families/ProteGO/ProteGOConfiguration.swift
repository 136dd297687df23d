import ExposureCore
import SubmissionCore
import SubmissionDomain

/// The ProteGO Safe adapter's settings (docs/protego.md).
public struct ProteGOConfiguration: Sendable {
    /// `PROTEGO_REGION` (default PL): the only region uploads may name, the keys' origin country and the region of
    /// the ProteGO download output.
    public var region: String
    /// `PROTEGO_ATTESTATION`: `ignore` (default, as the reference) or `require-presence`.
    public var attestation: ProteGOAttestationPolicy
    /// Whether the distribution run writes the ProteGO download output (`PROTEGO_EXPORTS`, default on).
    public var exports: Bool
    /// Where in the tree (`PROTEGO_EXPORT_PATH`, default `protego/<region>`): the apps' key base URL is the CDN's
    /// `<path>/`.
    public var exportPath: String
    /// The region's own export signing keys: `PROTEGO_SIGNING_KEY_FILE` (a PEM P-256 private key, required while
    /// `PROTEGO_EXPORTS` is on),
    /// `PROTEGO_SIGNING_ADDITIONAL_KEY_FILES`, and the `SignatureInfo` of the region's files:
    /// `PROTEGO_SIGNATURE_APP_BUNDLE_ID` (pl.gov.mc.protegosafe), `PROTEGO_SIGNATURE_KEY_ID` (260, Poland's mobile
    /// country code; the key id Apple and Google registered for Poland is not known) and
    /// `PROTEGO_SIGNATURE_KEY_VERSION` (v1).
    public var signing: ExportSigningKeys

    public init(_ settings: Settings) throws(ConfigurationError) {
        region = try settings.string("PROTEGO_REGION", default: "PL")
        guard Countries.isAlpha2(region) else {
            throw ConfigurationError(variable: "PROTEGO_REGION", reason: "must be an upper-case ISO 3166 alpha-2 code, got '\(region)'")
        }
        let policy = try settings.string("PROTEGO_ATTESTATION", default: ProteGOAttestationPolicy.ignore.rawValue)
        guard let attestation = ProteGOAttestationPolicy(rawValue: policy) else {
            let allowed = ProteGOAttestationPolicy.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(variable: "PROTEGO_ATTESTATION", reason: "must be one of \(allowed), got '\(policy)'")
        }
        self.attestation = attestation
        exports = try settings.bool("PROTEGO_EXPORTS", default: true)
        exportPath = try settings.string("PROTEGO_EXPORT_PATH", default: "protego/\(region)")
        let components = exportPath.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.isEmpty, components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.hasPrefix(".") }),
              components.first != "version" else {
            throw ConfigurationError(variable: "PROTEGO_EXPORT_PATH", reason: "must be a relative path of plain names outside version/, got '\(exportPath)'")
        }
        signing = try ExportSigningKeys(
            settings, prefix: "PROTEGO_", defaultAppBundleID: "pl.gov.mc.protegosafe", defaultKeyID: "260"
        )
    }

    public var layout: ProteGOExportLayout { ProteGOExportLayout(root: exportPath) }

    /// The upload rules, with the service's mapping of risk levels to days since onset.
    public func rules(riskMapping: TransmissionRiskMapping) -> ProteGOUploadValidator.Rules {
        ProteGOUploadValidator.Rules(region: region, attestation: attestation, riskMapping: riskMapping)
    }
}
