/// Who a teleTAN or one-time code was issued for: the officer who asked (nil for a health-authority system's code) and
/// their health authority. Kept with the code so that the officer can see whether it was used (`IssuedCode`), and
/// nothing about the patient it was read to.
public struct CodeOwner: Sendable, Equatable {
    /// An officer as their token names them. A subject is unique only within its issuer: two identity providers
    /// (say, two authorities' realms) may each have an officer `alice`, and neither may see the other's codes.
    public struct Officer: Sendable, Equatable {
        /// The token's `iss`.
        public let issuer: String
        /// The token's `sub`.
        public let subject: String

        public init(issuer: String, subject: String) {
            self.issuer = issuer
            self.subject = subject
        }
    }

    public let officer: Officer?
    public let authority: String

    public init(officer: Officer?, authority: String) {
        self.officer = officer
        self.authority = authority
    }
}
