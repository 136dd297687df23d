import ExposureRules

/// A key of Google's verification-server protocol (docs/enx.md, "Realms"), sent as `X-API-Key`. It belongs to one
/// health authority, which it names for every request (no request names one), and has one role:
/// - `admin`: a health authority's system issues codes, reads their status and expires them on the issuer
///   listener (`/api/issue`, `/api/batch-issue`, `/api/checkcodestatus`, `/api/expirecode`);
/// - `device`: the authority's ENX configuration (or its app) verifies codes and gets certificates on the app listener
///   (`/api/verify`, `/api/certificate`). It is no secret (it ships in every phone); it names the authority.
/// A key of one role is refused on the other's endpoints like an unknown one (401).
public struct ENXAPIKey: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        case admin
        case device
    }

    public let name: String
    public let authority: String
    public let role: Role

    public init(name: String, authority: String, role: Role) {
        self.name = name
        self.authority = authority
        self.role = role
    }

    /// `enx_` and 43 characters of base64url (32 random bytes); only its SHA-256 is stored. The reference's format is
    /// no contract (its docs say so): apps and systems send the key as they were given it.
    public static let format = PrefixedBearerToken(prefix: "enx_")
}
