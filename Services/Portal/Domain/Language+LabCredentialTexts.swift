extension Language {
    /// The lab credentials page's texts.
    public var labCredentialTexts: LabCredentialTexts {
        switch self {
        case .en: .english
        case .de: .german
        case .fr: .french
        case .pl: .polish
        }
    }
}
