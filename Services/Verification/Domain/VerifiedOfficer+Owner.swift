extension VerifiedOfficer {
    /// The officer as the codes they issue remember them: by issuer and subject together.
    public var owner: CodeOwner.Officer {
        CodeOwner.Officer(issuer: issuer, subject: subject)
    }
}
