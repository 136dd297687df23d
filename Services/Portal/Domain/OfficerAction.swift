/// What the administration audit log records (`portal_admin_audit_log.action`): who did what to whom, never a password.
public enum OfficerAction: String, Sendable, CaseIterable {
    case added = "officer_added"
    case disabled = "officer_disabled"
    case enabled = "officer_enabled"
    /// A supervisor gave the account a new temporary password.
    case passwordReset = "password_reset"
    case rolesChanged = "roles_changed"
    /// The officer chose their own password (after a temporary one, or any time).
    case passwordChanged = "password_changed"
    /// The officer set up two-factor sign-in.
    case totpEnrolled = "totp_enrolled"
    /// The officer signed in with a recovery code (one fewer left).
    case recoveryCodeUsed = "recovery_code_used"
    /// A system administrator created a health authority (target: its id; detail: its name).
    case authorityAdded = "authority_added"
    /// A system administrator disabled a health authority (target: its id).
    case authorityDisabled = "authority_disabled"
    case authorityEnabled = "authority_enabled"
    /// A system administrator changed a health authority's settings (target: its id; detail: its families, regions and
    /// four limits as they now are).
    case authorityChanged = "authority_changed"
    /// A system administrator switched maintenance on or off (no target; the national view shows it).
    case maintenanceStarted = "maintenance_started"
    case maintenanceEnded = "maintenance_ended"
    /// A supervisor created an issuer key of their authority (target: its name; detail: `KIND REGION`).
    case issuerKeyCreated = "issuer_key_created"
    /// A supervisor revoked an issuer key (target: its name).
    case issuerKeyRevoked = "issuer_key_revoked"
    /// A supervisor made a new version of their authority's signing key (target: its key id).
    case signingKeyCreated = "signing_key_created"
    /// A supervisor retired a version of their authority's signing key (target: its key id).
    case signingKeyRetired = "signing_key_retired"
    /// A system administrator created an API key for a lab (target: the lab's id; detail: the key's fingerprint).
    case labCredentialCreated = "lab_credential_created"
    /// A system administrator revoked a lab's credential (target: the lab's id; detail: its fingerprint).
    case labCredentialRevoked = "lab_credential_revoked"

    /// The audit page's name for the teleTAN and one-time code requests of `portal_audit_log`, which it shows beside
    /// the administration's rows.
    public static let issuance = "issue"

    /// Every value the audit page's action filter accepts.
    public static var filterValues: [String] { allCases.map(\.rawValue) + [issuance] }
}
