import Foundation
import SubmissionDomain

/// Reads the LEMON reference data: the files bundled with the service (`Data/`), then those of
/// `LEMON_DATA_DIRECTORY`, which add languages (`symptoms/<xx>.json`) or replace a list.
enum LemonCatalogFiles {
    struct Unreadable: Error, CustomStringConvertible {
        let path: String
        var description: String { "the LEMON data file \(path) cannot be read as the list it should hold" }
    }

    static func load(extraDirectory: String?) throws -> LemonCatalog {
        guard let bundled = Bundle.module.url(forResource: "Data", withExtension: nil) else { throw Unreadable(path: "Data") }
        var countries: [LemonCountry] = try read(bundled.appendingPathComponent("countries.json"))
        var languages: [LemonLanguage] = try read(bundled.appendingPathComponent("languages.json"))
        var symptoms = try symptomLists(in: bundled.appendingPathComponent("symptoms"))
        if let extraDirectory {
            let extra = URL(fileURLWithPath: extraDirectory)
            let countriesFile = extra.appendingPathComponent("countries.json")
            if FileManager.default.fileExists(atPath: countriesFile.path) { countries = try read(countriesFile) }
            let languagesFile = extra.appendingPathComponent("languages.json")
            if FileManager.default.fileExists(atPath: languagesFile.path) { languages = try read(languagesFile) }
            symptoms.merge(try symptomLists(in: extra.appendingPathComponent("symptoms"))) { $1 }
        }
        return LemonCatalog(countries: countries, languages: languages, symptoms: symptoms)
    }

    /// `<xx>.json` files, each a list of `{"key", "value"}`, by their two-letter name.
    static func symptomLists(in directory: URL) throws -> [String: [LemonSymptom]] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [:] }
        var lists: [String: [LemonSymptom]] = [:]
        for name in names where name.hasSuffix(".json") {
            let language = String(name.dropLast(5))
            guard LemonCatalog.isAlpha2(language) else { continue }
            lists[language.lowercased()] = try read(directory.appendingPathComponent(name))
        }
        return lists
    }

    static func read<T: Decodable>(_ url: URL) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
        } catch {
            throw Unreadable(path: url.path)
        }
    }
}
