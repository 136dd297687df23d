/// The languages the portal speaks: the one the officer chose with the switcher (a cookie), else the one the browser
/// prefers (`Accept-Language`).
public enum Language: String, Sendable, CaseIterable {
    case en
    case de
    case fr
    case pl

    /// The language's name in itself, as the switcher offers it.
    public var name: String {
        switch self {
        case .en: "English"
        case .de: "Deutsch"
        case .fr: "Français"
        case .pl: "Polski"
        }
    }

    public var texts: PortalTexts {
        switch self {
        case .en: .english
        case .de: .german
        case .fr: .french
        case .pl: .polish
        }
    }

    /// The supported language the browser ranks highest (RFC 9110 quality values; the first listed wins a
    /// tie); English when nothing matches.
    public static func preferred(acceptLanguage header: String?) -> Language {
        guard let header else { return .en }
        var best: (language: Language, quality: Double)?
        for entry in header.split(separator: ",") {
            let parts = entry.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let tag = parts.first, !tag.isEmpty else { continue }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            guard quality > 0, let language = Language(rawValue: primary) else { continue }
            if best == nil || quality > best!.quality { best = (language, quality) }
        }
        return best?.language ?? .en
    }
}
