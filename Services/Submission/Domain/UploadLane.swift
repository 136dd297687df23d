/// The family (and region) an upload path publishes keys for, and so the only TANs it accepts: a TAN is bound to the
/// family it was issued for, end to end (docs/security.md, "Every credential stays in its family"). A TAN of another
/// family is answered exactly as an unknown one, and its reservation is given back.
public enum UploadLane: Sendable, Equatable {
    /// `POST /version/v1/diagnosis-keys`: TANs of registered tests and of teleTANs.
    case coronaWarnApp
    /// ProteGO's `/uploadDiagnosisKeys`: TANs minted from PINs of this region (`PROTEGO_REGION`), whose keys it stores.
    case proteGO(region: String)

    /// The app family's name in the daily statistics (`uploads`), as verification's figures spell it.
    public var family: String {
        switch self {
        case .coronaWarnApp: "cwa"
        case .proteGO: "protego"
        }
    }

    /// Whether an upload on this lane may spend a TAN of `origin`.
    public func accepts(_ origin: TANOrigin) -> Bool {
        switch self {
        case .coronaWarnApp:
            origin.source == .guid || origin.source == .teleTAN
        case .proteGO(let region):
            origin.source == .proteGO && origin.region == region
        }
    }
}
