import HTTPTypes
import PortalDomain

/// A problem an officer is shown as a page: a status, a title and a message in their language.
/// Never carries details of the failure (those go to the log).
enum PortalError: Error, Equatable {
    case unknownHost
    case forwardedHostNotTrusted
    /// A form without the session's (or login page's) CSRF token.
    case formExpired
    case forbidden
    case badRequest
    case notFound
    case officerLimited(retryAfterSeconds: Int64, intervalSeconds: Int64)
    case globalLimited
    /// The officer's health authority has issued all it may in this hour or day.
    case authorityLimited
    case verificationRefused
    case unavailable
    /// Issuance during maintenance (`MAINTENANCE_MODE`).
    case maintenance
    case internalError

    var status: HTTPResponse.Status {
        switch self {
        case .unknownHost, .forwardedHostNotTrusted, .badRequest: .badRequest
        case .formExpired, .forbidden: .forbidden
        case .notFound: .notFound
        case .officerLimited, .globalLimited, .authorityLimited: .tooManyRequests
        case .verificationRefused: .badGateway
        case .unavailable, .maintenance: .serviceUnavailable
        case .internalError: .internalServerError
        }
    }

    /// Distinguishes the pages for tests and stylesheets (`data-problem` on the page).
    var code: String {
        switch self {
        case .unknownHost: "unknown-host"
        case .forwardedHostNotTrusted: "forwarded-host"
        case .formExpired: "form-expired"
        case .forbidden: "forbidden"
        case .badRequest: "bad-request"
        case .notFound: "not-found"
        case .officerLimited: "officer-limit"
        case .globalLimited: "global-limit"
        case .authorityLimited: "authority-limit"
        case .verificationRefused: "verification-refused"
        case .unavailable: "unavailable"
        case .maintenance: "maintenance"
        case .internalError: "internal-error"
        }
    }

    func title(_ t: PortalTexts) -> String {
        switch self {
        case .officerLimited: t.waitTitle
        case .globalLimited, .authorityLimited: t.busyTitle
        case .maintenance: t.maintenanceTitle
        default: t.errorTitle
        }
    }

    func message(_ t: PortalTexts) -> String {
        switch self {
        case .unknownHost, .forwardedHostNotTrusted: t.unknownHost
        case .formExpired: t.formExpired
        case .forbidden: t.forbidden
        case .badRequest: t.badRequest
        case .notFound: t.notFound
        case .officerLimited(let seconds, let interval):
            PortalTexts.fill(t.officerLimit, ["seconds": "\(seconds)", "interval": "\(interval)"])
        case .globalLimited: t.globalLimit
        case .authorityLimited: t.authorityLimit
        case .verificationRefused: t.verificationRefused
        case .unavailable: t.unavailable
        case .maintenance: t.maintenance
        case .internalError: t.internalError
        }
    }

    /// The page for a status Hummingbird itself answered (unknown path, wrong method, body too large).
    static func forStatus(_ status: HTTPResponse.Status) -> PortalError {
        switch status.code {
        case 404, 405: .notFound
        case 400..<500: .badRequest
        default: .internalError
        }
    }
}
