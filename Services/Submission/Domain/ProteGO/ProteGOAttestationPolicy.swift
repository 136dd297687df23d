/// What the ProteGO adapter does with `deviceVerificationPayload` (`PROTEGO_ATTESTATION`). Neither policy verifies
/// the attestation: that needs Apple's and Google's services and the app's credentials with them, and the reference
/// never did it. Its presence is counted either way, never claimed as verified.
public enum ProteGOAttestationPolicy: String, Sendable, CaseIterable {
    /// Accepted with or without an attestation (what the reference did).
    case ignore
    /// An upload without an attestation is refused (400) before its token is used.
    case requirePresence = "require-presence"
}
