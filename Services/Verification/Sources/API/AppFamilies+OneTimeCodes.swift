import ExposureCore
import VerificationDomain

extension AppFamilies {
    /// Whether codes of `kind` may be issued: their family is enabled.
    func serves(_ kind: OneTimeCodeKind) -> Bool {
        switch kind {
        case .covidShield: covidShield
        case .proteGO: protego
        }
    }
}
