extension Language {
    /// The issuer keys page's texts.
    public var issuerKeyTexts: IssuerKeyTexts {
        switch self {
        case .en: .english
        case .de: .german
        case .fr: .french
        case .pl: .polish
        }
    }
}
