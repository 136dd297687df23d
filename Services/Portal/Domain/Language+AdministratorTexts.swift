extension Language {
    /// The health-authorities page's texts (a system administrator's page).
    public var administratorTexts: AdministratorTexts {
        switch self {
        case .en: .english
        case .de: .german
        case .fr: .french
        case .pl: .polish
        }
    }
}
