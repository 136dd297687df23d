import ExposureCore
import VerificationDomain

/// The ENX family's settings on the verification service (docs/enx.md), with the defaults an installation starts
/// with. Whether the family is served at all is `ENX_ENABLED` (`AppFamilies`).
public struct ENXConfiguration: Sendable, Equatable {
    /// `ENX_TOKEN_ISSUER`: `iss` and `aud` of the verification tokens. The tokens come back only to this service, so
    /// the name is the installation's own.
    public var tokenIssuer = "exposuresuite-verification"
    /// `ENX_CERTIFICATE_ISSUER`: the certificates' `iss` is this, a slash and the health authority's id
    /// (`exposuresuite/default`): a key server finds the authority, and so its public keys, by it.
    public var certificateIssuer = "exposuresuite"
    /// `ENX_CERTIFICATE_AUDIENCE`: the certificates' `aud`, the key server's name for itself (Google's key server
    /// expects what its health-authority record says; the reference's default is this).
    public var certificateAudience = "exposure-notifications-server"
    /// `ENX_CERTIFICATE_LIFETIME`: how long a certificate may be used to publish keys (the reference's 15 minutes).
    public var certificateLifetime: Duration = .seconds(15 * 60)
    /// How codes are made: the reference's defaults, the only ones an ENX realm may use.
    public var codes = ENXCodeSettings()

    public init() {}

    public init(_ settings: Settings) throws(ConfigurationError) {
        tokenIssuer = try settings.string("ENX_TOKEN_ISSUER", default: tokenIssuer)
        certificateIssuer = try settings.string("ENX_CERTIFICATE_ISSUER", default: certificateIssuer)
        certificateAudience = try settings.string("ENX_CERTIFICATE_AUDIENCE", default: certificateAudience)
        certificateLifetime = try settings.duration("ENX_CERTIFICATE_LIFETIME", default: certificateLifetime, minimum: .seconds(60))
        if certificateLifetime > .seconds(3600) {
            throw ConfigurationError(variable: "ENX_CERTIFICATE_LIFETIME", reason: "is at most an hour: a certificate is used within minutes of its issue")
        }
    }

    /// The `iss` of `authority`'s certificates.
    public func certificateIssuer(of authority: String) -> String {
        "\(certificateIssuer)/\(authority)"
    }
}
