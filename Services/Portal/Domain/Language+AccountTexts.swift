extension Language {
    /// The texts of the officer administration, the password change and the audit log.
    public var accountTexts: AccountTexts {
        switch self {
        case .en: .english
        case .de: .german
        case .fr: .french
        case .pl: .polish
        }
    }
}
