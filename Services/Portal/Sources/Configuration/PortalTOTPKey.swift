import ExposureCore
import PortalDomain

/// The key that seals officers' TOTP secrets: `TOTP_ENCRYPTION_KEY` (64 hex digits, or `TOTP_ENCRYPTION_KEY_FILE`),
/// required to serve local sign-in; replicas share it. The all-in-one suite makes a development one.
public enum PortalTOTPKey {
    /// What `serve` says without it, when officers sign in with local accounts.
    static let missing = ConfigurationError(
        variable: "TOTP_ENCRYPTION_KEY",
        reason: "is required while LOCAL_LOGIN is on (or TOTP_ENCRYPTION_KEY_FILE): 64 hex digits (openssl rand -hex 32) sealing officers' TOTP secrets, kept outside the database"
    )

    public static func load(_ configuration: PortalConfiguration) throws(ConfigurationError) -> [UInt8] {
        guard let key = configuration.totpEncryptionKey else { throw missing }
        return key
    }
}
