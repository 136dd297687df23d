/// Who a teleTAN or one-time code was issued for: the officer who asked (the token's `sub`; nil for a health-authority
/// system's code) and their health authority. Kept with the code so that the officer can see whether it was used
/// (`IssuedCode`), and nothing about the patient it was read to.
public struct CodeOwner: Sendable, Equatable {
    public let officer: String?
    public let authority: String

    public init(officer: String?, authority: String) {
        self.officer = officer
        self.authority = authority
    }
}
