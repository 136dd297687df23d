extension Language {
    /// The signing keys page's texts.
    public var signingKeyTexts: SigningKeyTexts {
        switch self {
        case .en: .english
        case .de: .german
        case .fr: .french
        case .pl: .polish
        }
    }
}
