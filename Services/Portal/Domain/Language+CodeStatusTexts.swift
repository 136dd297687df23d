extension Language {
    /// The code status page's texts.
    public var codeStatusTexts: CodeStatusTexts {
        switch self {
        case .en: .english
        case .de: .german
        case .fr: .french
        case .pl: .polish
        }
    }
}
