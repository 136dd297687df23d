import ExposureCore
import ExposureTestSupport
import Foundation
@testable import PortalDomain
import Testing
@testable import Portal
@testable import Submission
import SubmissionCore
@testable import TestResult
@testable import Verification

/// The portal speaks English, German, French and Polish: every text exists in every language with the same
/// placeholders, no page shows a raw key or an unfilled placeholder, and the switcher's choice is remembered.
@Suite struct LanguageTests {
    /// Every text of each catalogue, by its name (a dictionary's entries as `name.key`).
    static func texts(of catalogue: Any) -> [String: String] {
        var found: [String: String] = [:]
        for child in Mirror(reflecting: catalogue).children {
            guard let name = child.label else { continue }
            if let text = child.value as? String {
                found[name] = text
            } else if let entries = child.value as? [String: String] {
                for (key, text) in entries { found["\(name).\(key)"] = text }
            }
        }
        return found
    }

    static func placeholders(_ text: String) -> Set<String> {
        Set(text.matches(of: /\{[a-zA-Z]+\}/).map { String($0.output) })
    }

    /// The compiler holds the catalogues' fields; this holds their dictionaries' keys, that no text is empty, and that
    /// each translation has the English text's placeholders, no more and no fewer.
    @Test(arguments: Language.allCases)
    func everyTextExistsInEveryLanguageWithItsPlaceholders(language: Language) {
        for (english, translated) in [
            (Self.texts(of: Language.en.texts), Self.texts(of: language.texts)),
            (Self.texts(of: Language.en.accountTexts), Self.texts(of: language.accountTexts)),
            (Self.texts(of: Language.en.statisticsTexts), Self.texts(of: language.statisticsTexts)),
            (Self.texts(of: Language.en.administratorTexts), Self.texts(of: language.administratorTexts)),
            (Self.texts(of: Language.en.codeStatusTexts), Self.texts(of: language.codeStatusTexts)),
            (Self.texts(of: Language.en.issuerKeyTexts), Self.texts(of: language.issuerKeyTexts)),
        ] {
            #expect(english.count > 20)
            #expect(Set(translated.keys) == Set(english.keys), "\(language)")
            for (name, text) in translated {
                #expect(!text.trimmingCharacters(in: .whitespaces).isEmpty, "\(language) \(name)")
                #expect(Self.placeholders(text) == Self.placeholders(english[name] ?? ""), "\(language) \(name)")
            }
        }
    }

    /// Every daily figure a service counts has a title in every language and a place on the statistics page, so that a
    /// new figure cannot reach a supervisor as its raw name.
    @Test func everyServicesFigureHasATitleAndAPlace() {
        let figures = VerificationFigures.all.map(\.name) + [
            TestResultAPI.labResultsReceived.name,
        ] + KeyIntake.figures.map(\.name)
        for name in figures {
            #expect(PortalWeb.figureOrder.contains(name), "\(name)")
            for language in Language.allCases { #expect(language.statisticsTexts.figures[name] != nil, "\(language) \(name)") }
        }
    }

    /// Each page, in each language chosen with the switcher: the page's `lang`, its own texts, the switcher offering
    /// every language, and nothing raw: no template tag, no placeholder, no catalogue name.
    @Test(arguments: TestDatabase.all)
    func everyPageSpeaksTheChosenLanguageAndShowsNoRawKey(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor("sofia")
            let sam = try await h.systemAdministrator()
            for language in Language.allCases {
                for (browser, paths) in [(h.browser(), ["/login"]), (sofia, ["/", "/password", "/officers", "/audit", "/statistics", "/codes"]), (sam, ["/authorities", "/maintenance", "/audit", "/statistics"])] {
                    let chosen = try await browser.get("/language?set=\(language.rawValue)&back=/")
                    #expect(chosen.status == 303)
                    for path in paths {
                        let page = try await browser.get(path)
                        #expect(page.status == 200, "\(language) \(path)")
                        #expect(page.text.contains(#"<html lang="\#(language.rawValue)">"#), "\(language) \(path)")
                        #expect(page.text.contains(language.texts.appTitle), "\(language) \(path)")
                        for other in Language.allCases {
                            #expect(page.text.contains(#"id="language-\#(other.rawValue)""#) && page.text.contains(other.name), "\(language) \(path)")
                        }
                        #expect(!page.text.contains("{{") && Self.placeholders(page.text).isEmpty, "\(language) \(path)")
                        #expect(page.text.firstMatch(of: /[>"]\s*(t|a|st|au|cs)\.[a-z][A-Za-z]+\s*[<"]/) == nil, "\(language) \(path)")
                    }
                }
            }
        }
    }

    /// The switcher remembers the choice over the browser's own preference and leads back to the page, never
    /// elsewhere; an unknown language is a 400.
    @Test(arguments: TestDatabase.all)
    func theSwitcherRemembersTheChoiceAndStaysOnTheSite(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let browser = h.browser(language: "de")
            #expect(try await browser.get("/login").text.contains(#"<html lang="de">"#))
            let chosen = try await browser.get("/language?set=pl&back=/login")
            Covers.status(303, of: "GET /language", chosen)
            #expect(chosen.header("Location") == "/login")
            #expect(chosen.header("Set-Cookie")?.contains("portal_language=pl") == true)
            #expect(chosen.header("Set-Cookie")?.lowercased().contains("httponly") == true)
            let polish = try await browser.get("/login")
            #expect(polish.text.contains(#"<html lang="pl">"#))
            #expect(polish.text.contains(#"id="language-pl" aria-current="true""#))
            // The switcher on that page leads back to it.
            #expect(polish.text.contains(#"href="/language?set=fr&amp;back=%2Flogin""#))

            for back in ["//evil.example/", "https://evil.example/", "/\\evil.example", "evil", ""] {
                let answer = try await browser.get("/language?set=fr&back=" + (back.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
                #expect(answer.header("Location") == "/", "\(back)")
            }
            let unknown = try await browser.get("/language?set=xx&back=/login")
            Covers.status(400, of: "GET /language", unknown, error: "bad-request")
            #expect(try await browser.get("/login").text.contains(#"<html lang="fr">"#))
        }
    }
}
