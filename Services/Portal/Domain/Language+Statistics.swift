extension Language {
    /// The statistics page's texts (kept apart from `PortalTexts`, which every other page uses).
    public var statisticsTexts: StatisticsTexts {
        switch self {
        case .en: .english
        case .de: .german
        case .fr: .french
        case .pl: .polish
        }
    }
}
