import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore

/// Export signing with several keys, for a rotation without an outage (docs/operations.md, "Export-signing key"): every
/// key file, the app configuration and the ProteGO region's zips carry one `SignatureInfo` and one signature per
/// configured key, in the same order, each checked by tools that share nothing with this code base (Python's zipfile
/// and protobuf from the contract's `.proto`, OpenSSL).
@Suite struct ExportSigningKeyRotationTests {
    /// PEM key files in a temporary directory (the caller removes it).
    struct KeyFiles {
        let directory: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("signing-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        func write(_ pem: String, name: String) throws -> String {
            let file = directory.appendingPathComponent(name)
            try SecretFile.write(pem, to: file)
            return file.path
        }

        func remove() {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// What the independent reader found in one zip: the key ids and versions of `export.bin`'s signature infos and of
    /// `export.sig`'s signatures, in order, and for each signature the keys (by index into `publicKeys`) OpenSSL
    /// verifies it with; whether any still verifies once `export.bin` is changed.
    struct IndependentCheck {
        var signatureInfos: [String] = []
        var signatures: [String] = []
        var verifyingKeys: [[Int]] = []
        var verifiesChangedBytes = false
    }

    /// Reads `zip` with `script` (read_export.py or read_app_config.py) and checks every signature in it with OpenSSL
    /// against every one of `publicKeys`.
    static func check(_ zip: URL, script: String, publicKeys: [P256.Signing.PublicKey]) async throws -> IndependentCheck {
        let classes = try ExternalTool.pythonClasses(for: [
            ("app_config.proto", ExternalTool.publishedProtos), ("export_contract.proto", ExternalTool.fixtures),
        ])
        defer { try? FileManager.default.removeItem(at: classes) }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let output = try await ExternalTool.run([ExternalTool.python, ExternalTool.fixtures.appendingPathComponent(script).path, classes.path, zip.path, work.path])
        let report = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        func pairs(_ name: String) -> [String] {
            ((report[name] as? [[String: Any]]) ?? []).map { "\($0["keyId"] as? String ?? "?")/\($0["keyVersion"] as? String ?? "?")" }
        }
        var check = IndependentCheck(signatureInfos: pairs("signatureInfos"), signatures: pairs("signatures"))
        let publicKeyFiles = try publicKeys.enumerated().map { index, key in
            let file = work.appendingPathComponent("public-\(index).pem")
            try SecretFile.write(key.pemRepresentation, to: file)
            return file
        }
        let data = work.appendingPathComponent("export.bin")
        let signatureFiles = check.signatures.indices.map { work.appendingPathComponent("signature-\($0 + 1).der") }
        check.verifyingKeys = signatureFiles.map { signature in
            publicKeyFiles.indices.filter { ExternalTool.opensslVerifies(data, signature: signature, publicKey: publicKeyFiles[$0]) }
        }
        var changed = try Data(contentsOf: data)
        changed[changed.count - 1] ^= 1
        try changed.write(to: data)
        check.verifiesChangedBytes = signatureFiles.contains { signature in
            publicKeyFiles.contains { ExternalTool.opensslVerifies(data, signature: signature, publicKey: $0) }
        }
        return check
    }

    /// One distribution run with `count` CWA keys (`SIGNING_KEY_FILE`, then `SIGNING_ADDITIONAL_KEY_FILES` as `v2`)
    /// and `count` ProteGO keys (the second under its own key id): each file holds exactly one signature per key, in
    /// the configured order, and each verifies with its own key's public key and no other. With two keys this fails
    /// if only the first key signed, or if its signature were repeated under the second key's info.
    @Test(arguments: TestDatabase.all, [1, 2])
    func everyFileCarriesOneSignatureByEachKeyThatVerifiesWithThatKeyOnly(kind: TestDatabase, count: Int) async throws {
        let files = try KeyFiles()
        defer { files.remove() }
        let cwa = (0..<count).map { _ in P256.Signing.PrivateKey() }
        let protego = (0..<count).map { _ in P256.Signing.PrivateKey() }
        var settings = [
            "SIGNING_KEY_FILE": try files.write(cwa[0].pemRepresentation, name: "cwa-v1.pem"),
            "PROTEGO_SIGNING_KEY_FILE": try files.write(protego[0].pemRepresentation, name: "protego-v1.pem"),
        ]
        if count == 2 {
            settings["SIGNING_ADDITIONAL_KEY_FILES"] = try files.write(cwa[1].pemRepresentation, name: "cwa-v2.pem") + "|v2"
            settings["PROTEGO_SIGNING_ADDITIONAL_KEY_FILES"] = try files.write(protego[1].pemRepresentation, name: "protego-v2.pem") + "| v2 | 261"
        }
        let cwaExpected = ["262/v1", "262/v2"].prefix(count).map { $0 }
        let protegoExpected = ["260/v1", "261/v2"].prefix(count).map { $0 }
        let ownKeyOnly = (0..<count).map { [$0] }

        try await ProteGODistributionTests().withOutput(kind, settings: settings) { output in
            let h = output.harness
            try await DistributorTests().upload(h, count: 3, firstByte: 10)
            try await ProteGODistributionTests().upload(h, bytes: [20])
            let submitted = h.clock.now()
            h.clock.advance(by: 7200)
            _ = try await output.run()

            let exports = output.root.appendingPathComponent("exports")
            let tree = ExportTreeWriter(root: exports)
            let layout = ExportTreeLayout(country: "DE")
            let hourFile = tree.fileURL(layout.hour(ExportTreeLayout.date(day: submitted.epochSeconds / 86400), Int(submitted.epochSeconds / 3600 % 24)))
            let protegoName = try #require(try await output.names().first)
            let zips: [(name: String, file: URL, script: String, keys: [P256.Signing.PrivateKey], expected: [String])] = [
                ("CWA hour file", hourFile, "read_export.py", cwa, cwaExpected),
                ("app configuration", tree.fileURL(layout.appConfig), "read_app_config.py", cwa, cwaExpected),
                ("ProteGO zip", exports.appendingPathComponent("protego/PL/\(protegoName)/index"), "read_export.py", protego, protegoExpected),
            ]
            for zip in zips {
                let check = try await Self.check(zip.file, script: zip.script, publicKeys: zip.keys.map(\.publicKey))
                if zip.script == "read_export.py" {
                    #expect(check.signatureInfos == zip.expected, "\(zip.name): export.bin's signature infos")
                }
                #expect(check.signatures == zip.expected, "\(zip.name): export.sig's signatures")
                #expect(check.verifyingKeys == ownKeyOnly, "\(zip.name): the keys each signature verifies with")
                #expect(!check.verifiesChangedBytes, "\(zip.name): a signature still verifies once export.bin is changed")
            }
        }
    }

    func configuration(_ variables: [String: String]) throws -> SubmissionConfiguration {
        try SubmissionConfiguration(TestServices.settings(variables))
    }

    /// A misconfigured additional key stops start-up with a message that names the setting and the problem (the
    /// service's entry point prints it and exits), before anything is signed: a malformed entry, a key id and
    /// version another key already has, a file that cannot be read, a key on another curve, the same key twice.
    @Test func aMisconfiguredAdditionalKeyIsAClearStartUpError() throws {
        let files = try KeyFiles()
        defer { files.remove() }
        let primary = try files.write(P256.Signing.PrivateKey().pemRepresentation, name: "primary.pem")
        let second = try files.write(P256.Signing.PrivateKey().pemRepresentation, name: "second.pem")
        let otherCurve = try files.write(P384.Signing.PrivateKey().pemRepresentation, name: "p384.pem")
        let missing = files.directory.appendingPathComponent("missing.pem").path
        let variable = "SIGNING_ADDITIONAL_KEY_FILES"

        // Refused when the settings are read.
        let settingsErrors: [(String, String)] = [
            (second, "entry 1 must be path|version or path|version|keyID, got '\(second)'"),
            ("\(second)||262", "entry 1 must be path|version or path|version|keyID, got '\(second)||262'"),
            ("\(second)|v1", "entry 1 repeats key id 262 version v1, which another signing key already has: give each key its own version"),
            ("\(second)|v2,\(otherCurve)|v2|262", "entry 2 repeats key id 262 version v2, which another signing key already has: give each key its own version"),
            ("\(missing)|v2", "names \(missing), which does not exist or cannot be reached"),
        ]
        for (value, reason) in settingsErrors {
            #expect(throws: ConfigurationError(variable: variable, reason: reason), "\(value)") {
                try configuration(["SIGNING_KEY_FILE": primary, variable: value])
            }
        }
        // Another key id may reuse a version.
        let elsewhere = try configuration(["SIGNING_KEY_FILE": primary, variable: "\(second)|v1|999"])
        #expect(elsewhere.distribution.signing.additional == [AdditionalSigningKey(file: second, keyVersion: "v1", keyID: "999")])

        // Refused when the keys are loaded, as `serve` and `distribute` do first.
        let keyErrors: [(String, String)] = [
            ("\(otherCurve)|v2", "names \(otherCurve), which is not a PEM P-256 private key"),
            ("\(primary)|v2", "entry 1 names \(primary), the same key as SIGNING_KEY_FILE: each version needs a key of its own"),
            ("\(second)|v2,\(second)|v3", "entry 2 names \(second), the same key as entry 1: each version needs a key of its own"),
        ]
        for (value, reason) in keyErrors {
            let loaded = try configuration(["SIGNING_KEY_FILE": primary, variable: value])
            #expect(throws: ConfigurationError(variable: variable, reason: reason), "\(value)") {
                try loaded.distribution.signing.load()
            }
        }

        // The ProteGO region's keys are read by the same code, under their own names.
        let protego = try configuration(["PROTEGO_SIGNING_KEY_FILE": primary, "PROTEGO_SIGNING_ADDITIONAL_KEY_FILES": "\(otherCurve)|v2"])
        #expect(throws: ConfigurationError(variable: "PROTEGO_SIGNING_ADDITIONAL_KEY_FILES", reason: "names \(otherCurve), which is not a PEM P-256 private key")) {
            try protego.protego.signing.load()
        }
        #expect(throws: ConfigurationError.self) {
            try configuration(["PROTEGO_SIGNING_ADDITIONAL_KEY_FILES": "\(second)|v1"])
        }
    }

    /// Without the new setting nothing changes: one key, its settings as before.
    @Test func theExistingSettingsAloneSignWithOneKey() throws {
        let signing = try configuration(["SIGNATURE_KEY_VERSION": "v3", "SIGNATURE_KEY_ID": "999"]).distribution.signing
        #expect(signing.additional.isEmpty)
        #expect(signing.keyFile == TestServiceTokens.serviceDefaults["SIGNING_KEY_FILE"] && signing.keyVersion == "v3" && signing.keyID == "999" && signing.appBundleID == "de.rki.coronawarnapp")
    }
}
