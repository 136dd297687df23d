import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@Suite struct SettingsTests {
    @Test func defaultsApplyWhenNothingIsSet() throws {
        let settings = TestServices.settings([:])
        let common = try CommonSettings(settings, defaultDatabase: "sqlite://data/x.db")
        #expect(common.databaseURL == .sqliteFile("data/x.db"))
        #expect(common.databasePoolSize == 8)
        #expect(common.logLevel == .info)
        #expect(try settings.port("PORT", default: 8010) == 8010)
    }

    @Test func unsupportedDatabaseSchemeNamesTheVariable() {
        let settings = TestServices.settings(["DATABASE_URL": "mysql://x"])
        #expect {
            _ = try CommonSettings(settings, defaultDatabase: "sqlite::memory:")
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.variable == "DATABASE_URL" && error?.description.contains("mysql") == true
        }
    }

    @Test(arguments: [
        ("sqlite::memory:", DatabaseURL.sqliteMemory),
        ("sqlite:///var/lib/x.db", DatabaseURL.sqliteFile("/var/lib/x.db")),
        ("sqlite://data/y.db", DatabaseURL.sqliteFile("data/y.db")),
        ("postgres://u:p@db:5432/verification", DatabaseURL.postgres("postgres://u:p@db:5432/verification")),
    ])
    func databaseURLsParse(text: String, expected: DatabaseURL) throws {
        #expect(try DatabaseURL(parsing: text) == expected)
    }

    @Test(arguments: [
        ("DATABASE_POOL_SIZE", "many"),
        ("DATABASE_POOL_SIZE", "0"),
        ("DATABASE_TIMEOUT", "soon"),
        ("DATABASE_PREPARED_STATEMENTS", "sometimes"),
        ("LOG_LEVEL", "loud"),
        ("LOG_FORMAT", "xml"),
    ])
    func invalidCommonSettingNamesItsVariable(variable: String, value: String) {
        let settings = TestServices.settings([variable: value])
        #expect {
            _ = try CommonSettings(settings, defaultDatabase: "sqlite::memory:")
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.variable == variable && error?.description.contains(variable) == true
        }
    }

    @Test func preparedStatementsAreOnUnlessTurnedOff() throws {
        #expect(try CommonSettings(TestServices.settings([:]), defaultDatabase: "sqlite::memory:").databasePreparedStatements)
        let off = TestServices.settings(["DATABASE_PREPARED_STATEMENTS": "false"])
        #expect(try !CommonSettings(off, defaultDatabase: "sqlite::memory:").databasePreparedStatements)
    }

    @Test func databaseURLHidesPasswordWhenPrinted() throws {
        let url = try DatabaseURL(parsing: "postgres://user:secret@db:5432/x")
        #expect(!url.description.contains("secret"))
    }

    @Test func numbersOutOfRangeAreRefused() {
        let settings = TestServices.settings(["PORT": "70000", "DATABASE_POOL_SIZE": "many"])
        #expect(throws: ConfigurationError(variable: "PORT", reason: "must be between 0 and 65535, got 70000")) {
            _ = try settings.port("PORT", default: 1)
        }
        #expect(throws: ConfigurationError.self) { _ = try CommonSettings(settings, defaultDatabase: "sqlite::memory:") }
    }

    @Test func aSettingCanComeFromTheFileItsFileVariableNames() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("setting-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try SecretFile.write("s3cret\n", to: file)
        #expect(try Settings(arguments: [], environment: ["API_SECRET_FILE": file.path]).requiredString("API_SECRET") == "s3cret")
        // The variable itself wins over its file.
        #expect(try Settings(arguments: [], environment: ["API_SECRET": "direct", "API_SECRET_FILE": file.path]).requiredString("API_SECRET") == "direct")
        #expect(throws: ConfigurationError(variable: "API_SECRET_FILE", reason: "names /nonexistent/secret, which does not exist or cannot be reached")) {
            try Settings(arguments: [], environment: ["API_SECRET_FILE": "/nonexistent/secret"]).requiredString("API_SECRET")
        }
    }

    @Test func flagsWinOverEnvironment() throws {
        let settings = Settings(arguments: ["tool", "--port", "9000"], environment: ["PORT": "8000"])
        #expect(try settings.port("PORT", default: 1) == 9000)
    }

    @Test func durationsAcceptUnits() throws {
        #expect(Settings.parseDuration("90s") == .seconds(90))
        #expect(Settings.parseDuration("15m") == .seconds(900))
        #expect(Settings.parseDuration("2h") == .seconds(7200))
        #expect(Settings.parseDuration("14d") == .seconds(14 * 86400))
        #expect(Settings.parseDuration("250ms") == .milliseconds(250))
        #expect(Settings.parseDuration("soon") == nil)
        let settings = TestServices.settings(["RETENTION_INTERVAL": "often"])
        #expect(throws: ConfigurationError.self) { _ = try settings.duration("RETENTION_INTERVAL", default: .seconds(1)) }
    }

    @Test func booleansAndChoices() throws {
        let settings = TestServices.settings(["A": "yes", "B": "maybe", "LOG_LEVEL": "loud"])
        #expect(try settings.bool("A", default: false))
        #expect(throws: ConfigurationError.self) { _ = try settings.bool("B", default: false) }
        #expect(throws: ConfigurationError.self) { _ = try CommonSettings(settings, defaultDatabase: "sqlite::memory:") }
    }
}
