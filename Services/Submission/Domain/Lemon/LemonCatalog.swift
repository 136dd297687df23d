import Foundation

/// The reference data of the LEMON API: countries, languages, and the symptom list per language. It comes from data
/// files (`Services/Submission/Families/Lemon/Data`, plus any directory configured), so adding a language is adding a file.
public struct LemonCatalog: Sendable {
    /// The language of `GET /api/v1/symptoms` without `?language=` (the seed: English).
    public static let defaultLanguage = "en"

    public let countries: [LemonCountry]
    public let languages: [LemonLanguage]
    /// Symptom lists by lower-case alpha-2 code.
    public let symptoms: [String: [LemonSymptom]]
    /// Every symptom key of every list: what a survey may send back.
    public let symptomKeys: Set<String>

    public init(countries: [LemonCountry], languages: [LemonLanguage], symptoms: [String: [LemonSymptom]]) {
        self.countries = countries
        self.languages = languages
        self.symptoms = Dictionary(uniqueKeysWithValues: symptoms.map { ($0.key.lowercased(), $0.value) })
        self.symptomKeys = Set(symptoms.values.flatMap { $0.map(\.key) })
    }

    /// Two ASCII letters, in any casing: the form of every country and language code of the API.
    public static func isAlpha2(_ code: String) -> Bool {
        code.utf8.count == 2 && code.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.isAlphabetic }
    }

    /// The symptoms in `language` (default English). A code that is not two letters, or names no list: invalid.
    public func symptoms(language: String?) throws(LemonRejection) -> [LemonSymptom] {
        guard let language, !language.isEmpty else { return symptoms[Self.defaultLanguage] ?? [] }
        guard Self.isAlpha2(language), let list = symptoms[language.lowercased()] else {
            throw .invalid("The language must be the alpha-2 code of a supported language.")
        }
        return list
    }

    /// The country with this alpha-2 code (any casing), or nil.
    public func country(_ alpha2: String) -> LemonCountry? {
        guard Self.isAlpha2(alpha2) else { return nil }
        return countries.first { $0.alpha2.caseInsensitiveCompare(alpha2) == .orderedSame }
    }

    /// The language with this alpha-2 code (any casing), or nil.
    public func language(_ alpha2: String) -> LemonLanguage? {
        guard Self.isAlpha2(alpha2) else { return nil }
        return languages.first { $0.alpha2.caseInsensitiveCompare(alpha2) == .orderedSame }
    }

    /// `?country=` of `GET /api/v1/countries`: all when absent, the one named, else invalid.
    public func countries(matching alpha2: String?) throws(LemonRejection) -> [LemonCountry] {
        guard let alpha2, !alpha2.isEmpty else { return countries }
        guard let country = country(alpha2) else { throw .invalid("The country must be the alpha-2 code of a supported country.") }
        return [country]
    }

    /// `?language=` of `GET /api/v1/languages`: all when absent, the one named, else invalid.
    public func languages(matching alpha2: String?) throws(LemonRejection) -> [LemonLanguage] {
        guard let alpha2, !alpha2.isEmpty else { return languages }
        guard let language = language(alpha2) else { throw .invalid("The language must be the alpha-2 code of a supported language.") }
        return [language]
    }
}
