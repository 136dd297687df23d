import ExposureCore
import ExposureTestSupport
import Foundation
import Submission
import SubmissionLemon
import Testing

/// Only the all-in-one suite makes development keys for LEMON: the submission service, given no keys, refuses to
/// start the family, naming what is missing, and writes no key anywhere.
@Suite struct LemonConfigurationTests {
    @Test(arguments: ["LEMON_APPID_HASH_KEYS", "LEMON_ENCRYPTION_KEY", "LEMON_SIGNING_KEY", "LEMON_JWT_KEY"])
    func theServiceRefusesLemonWithoutItsKeys(missing: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lemon-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = LemonTestKeys.settings
        settings[missing] = nil
        settings["DATA_DIR"] = directory.path
        let error = #expect(throws: ConfigurationError.self) {
            try SubmissionConfiguration(TestServices.settings(settings))
        }
        #expect(error?.variable == missing)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        // With every key, the same settings start the family.
        #expect(try LemonConfiguration(TestServices.settings(LemonTestKeys.settings)).serverKeys != nil)
    }
}
