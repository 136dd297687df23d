import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield
@testable import SubmissionDomain

@Suite struct CovidShieldConfigurationTests {
    /// Without keys of its own the configuration reads (commands other than `serve` need none); serving then needs
    /// both keys (`CovidShieldKeyEncryptionTests`, `CommandLineTests.serveWithoutARequiredSettingExits2…`).
    @Test func defaultsServeOntarioWithoutKeysOfTheirOwn() throws {
        let configuration = try CovidShieldConfiguration(TestServices.settings([
            "COVIDSHIELD_KEY_ENCRYPTION_KEY_FILE": "", "COVIDSHIELD_RETRIEVE_HMAC_KEY_FILE": "",
        ]))
        #expect(configuration.regions == ["ON"])
        #expect(configuration.cwaKeysRegion == nil)
        #expect(configuration.keyEncryptionKey == nil && configuration.retrieveHMACKey == nil)
        #expect(configuration.exposureConfiguration == CovidShieldExposureConfiguration.defaultJSON)
    }

    @Test func keysAreHexOfTheirLength() throws {
        let configuration = try CovidShieldConfiguration(TestServices.settings([
            "COVIDSHIELD_KEY_ENCRYPTION_KEY": String(repeating: "ab", count: 32),
            "COVIDSHIELD_RETRIEVE_HMAC_KEY": String(repeating: "01", count: 48),
            "COVIDSHIELD_REGIONS": "ON,QC", "COVIDSHIELD_CWA_KEYS_REGION": "QC",
        ]))
        #expect(configuration.keyEncryptionKey == [UInt8](repeating: 0xAB, count: 32))
        #expect(configuration.retrieveHMACKey?.count == 48)
        #expect(configuration.regions == ["ON", "QC"] && configuration.cwaKeysRegion == "QC")
        for (variable, value) in [
            ("COVIDSHIELD_KEY_ENCRYPTION_KEY", String(repeating: "ab", count: 31)),
            ("COVIDSHIELD_KEY_ENCRYPTION_KEY", String(repeating: "zz", count: 32)),
            ("COVIDSHIELD_RETRIEVE_HMAC_KEY", String(repeating: "01", count: 31)),
            ("COVIDSHIELD_REGIONS", "ON,Q C"),
            ("COVIDSHIELD_CWA_KEYS_REGION", "BC"),
            ("COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE", "/nonexistent/exposure.json"),
        ] {
            #expect(throws: ConfigurationError.self, "\(variable)=\(value)") { try CovidShieldConfiguration(TestServices.settings([variable: value])) }
        }
    }

    @Test func anExposureConfigurationFileMustHoldAnObject() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json"), bad = directory.appendingPathComponent("bad.json")
        try Data(#"{"minimumRiskScore":1}"#.utf8).write(to: good)
        try Data("[1,2]".utf8).write(to: bad)
        let configuration = try CovidShieldConfiguration(TestServices.settings(["COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE": good.path]))
        #expect(configuration.exposureConfiguration == #"{"minimumRiskScore":1}"#)
        #expect(throws: ConfigurationError.self) { try CovidShieldConfiguration(TestServices.settings(["COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE": bad.path])) }
    }
}
