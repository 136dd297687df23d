import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore

/// The ProteGO download output of the distribution run: `index.txt` and zips named as both apps parse them, served
/// at the index's three spellings, each zip a GAEN export signed with the region's own key (acceptance items 6, 13, 14
/// and 15 of the design sheet).
@Suite struct ProteGODistributionTests {
    struct Output {
        let harness: SubmissionHarness
        let distributor: Distributor
        let regionKey: P256.Signing.PublicKey
        let cwaKey: P256.Signing.PublicKey
        let root: URL

        func run() async throws -> DistributionReport {
            try await distributor.run(now: harness.clock.now())
        }

        func index(_ spelling: String = "/protego/PL/index.txt") async throws -> TestResponse {
            try await harness.client.get(spelling)
        }

        /// The names the index lists (without their leading `/`).
        func names() async throws -> [String] {
            let response = try await index()
            #expect(response.status == 200)
            return response.text.split(separator: "\n").map { String($0.dropFirst()) }
        }
    }

    /// A submission service that serves its export tree, with the distributor `serve` would run.
    func withOutput(_ kind: TestDatabase, settings extra: [String: String] = [:], _ body: (Output) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("protego-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var settings = [
            "EXPORT_DIR": root.appendingPathComponent("exports").path, "DATA_DIR": root.appendingPathComponent("data").path,
            "SERVE_EXPORTS": "1", "SHIFTING_THRESHOLD": "1",
        ]
        settings.merge(extra) { $1 }
        try await SubmissionHarness.run(kind, environment: settings) { harness in
            var all = settings
            all["VERIFICATION_URL"] = harness.verificationURL.absoluteString
            let configuration = try SubmissionConfiguration(TestServices.settings(all))
            let distributor = try SubmissionService.makeDistributor(configuration, database: harness.database, logger: TestLogger.quiet)
            let regionPEM = try SubmissionService.protegoExportPublicKeyPEM(configuration)
            let cwaPEM = try SubmissionService.exportPublicKeyPEM(configuration)
            try await body(Output(
                harness: harness, distributor: distributor,
                regionKey: try P256.Signing.PublicKey(pemRepresentation: regionPEM),
                cwaKey: try P256.Signing.PublicKey(pemRepresentation: cwaPEM), root: root
            ))
        }
    }

    /// Uploads keys of the given bytes (one a day before today) through `/uploadDiagnosisKeys` with a new PIN's token.
    func upload(_ h: SubmissionHarness, bytes: [UInt8], daysAgo first: Int = 1) async throws {
        let pin = h.verification.issuePIN()
        let token = try await h.client.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": pin]])
        let accessToken = try #require((token.json["result"] as? [String: Any])?["accessToken"] as? String)
        let keys = bytes.enumerated().map { ProteGOPayloads.key($0.element, now: h.clock.now(), daysAgo: first + $0.offset) }
        let response = try await h.client.postJSON(ProteGOPayloads.uploadPath, ProteGOPayloads.iOS(keys: keys, token: accessToken))
        #expect(response.status == 200, "\(response.text)")
    }

    static var namePattern: Regex<(Substring, Substring, Substring)> { /\/?([0-9]{10})-([0-9]{5})\.zip/ }

    @Test(arguments: TestDatabase.all)
    func theIndexListsSignedZipsNamedByTheirPublicationTime(kind: TestDatabase) async throws {
        try await withOutput(kind) { output in
            let h = output.harness
            // Before any key: an empty index.
            _ = try await output.run()
            #expect(try await output.index().text == "")
            let firstFetch = h.clock.now().epochSeconds

            h.clock.advance(by: 60)
            try await upload(h, bytes: [1, 2])
            let report = try await output.run()
            #expect(report.protegoKeysPublished == 2)
            #expect(report.protegoFilesWritten == 1)
            let index = try await output.index()
            #expect(index.status == 200)
            #expect(index.header("Content-Type")?.hasPrefix("text/plain") == true)
            // The spellings the apps ask for.
            for spelling in ["/protego/PL//index.txt", "/protego/PL/%2Findex.txt"] {
                let other = try await output.index(spelling)
                #expect(other.status == 200, "\(spelling)")
                #expect(other.body == index.body, "\(spelling)")
            }
            let lines = index.text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 1)
            let first = try #require(lines.first.flatMap { try? Self.namePattern.wholeMatch(in: String($0)) })
            #expect(lines.first?.hasPrefix("/") == true)
            let firstTime = try #require(Int64(first.1))
            #expect(firstTime > firstFetch)
            #expect(first.2 == "00001")

            // The zip: a GAEN export of the region, signed with the region's key (not the CWA one).
            let name = String(lines[0].dropFirst())
            let zip = try await h.client.get("/protego/PL/\(name)")
            #expect(zip.status == 200)
            #expect(zip.header("Content-Type") == "application/zip")
            let (binary, export, signatures) = try ExportArchive.read(Data(zip.body))
            #expect(Array(binary.prefix(16)) == Array("EK Export v1    ".utf8))
            #expect(export.region == "PL")
            #expect(export.keys.map { $0.keyData.first! } == [1, 2])
            #expect(export.keys.allSatisfy { $0.transmissionRiskLevel == 8 })
            let signature = try #require(signatures.signatures.first)
            #expect(signature.signatureInfo.verificationKeyID == "260")
            #expect(signature.signatureInfo.verificationKeyVersion == "v1")
            #expect(signature.signatureInfo.appBundleID == "pl.gov.mc.protegosafe")
            let ecdsa = try P256.Signing.ECDSASignature(derRepresentation: signature.signature)
            #expect(output.regionKey.isValidSignature(ecdsa, for: binary))
            #expect(!output.cwaKey.isValidSignature(ecdsa, for: binary))

            // A later upload goes into a new file whose number is later than this fetch; the first file stays.
            let secondFetch = h.clock.now().epochSeconds
            h.clock.advance(by: 1)
            try await upload(h, bytes: [3])
            _ = try await output.run()
            let names = try await output.names()
            #expect(names.count == 2)
            #expect(names.first == name)
            let second = try #require(try Self.namePattern.wholeMatch(in: names[1]))
            #expect(try #require(Int64(second.1)) > secondFetch)
            let again = try await h.client.get("/protego/PL/\(name)")
            #expect(again.body == zip.body)

            // Nothing new: no new file.
            h.clock.advance(by: 60)
            let idle = try await output.run()
            #expect(idle.protegoFilesWritten == 0)
            #expect(try await output.names() == names)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aKeyStillInUseWaitsUntilTwoHoursAfterItsEnd(kind: TestDatabase) async throws {
        try await withOutput(kind) { output in
            let h = output.harness
            // Today's key: valid until midnight.
            try await upload(h, bytes: [7], daysAgo: 0)
            _ = try await output.run()
            #expect(try await output.names().isEmpty)
            let now = h.clock.now().epochSeconds
            let midnight = (now / 86_400 + 1) * 86_400
            h.clock.set(Date(timeIntervalSince1970: TimeInterval(midnight + 2 * 3600 - 1)))
            _ = try await output.run()
            #expect(try await output.names().isEmpty)
            h.clock.advance(by: 1)
            _ = try await output.run()
            #expect(try await output.names().count == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aLostFileIsWrittenAgainWithTheSameKeys(kind: TestDatabase) async throws {
        try await withOutput(kind) { output in
            let h = output.harness
            try await upload(h, bytes: [9, 10, 11])
            _ = try await output.run()
            let name = try #require(try await output.names().first)
            let writer = ExportTreeWriter(root: output.root.appendingPathComponent("exports"))
            try writer.remove("protego/PL/\(name)")
            let report = try await output.run()
            #expect(report.protegoFilesWritten == 1)
            let (_, export, _) = try ExportArchive.read(try writer.read("protego/PL/\(name)"))
            #expect(export.keys.map { $0.keyData.first! } == [9, 10, 11])
            #expect(try await output.names() == [name])
        }
    }

    @Test(arguments: TestDatabase.all)
    func independentToolsReadTheZipAndVerifyItsSignature(kind: TestDatabase) async throws {
        try await withOutput(kind) { output in
            let h = output.harness
            try await upload(h, bytes: [20])
            _ = try await output.run()
            let name = try #require(try await output.names().first)
            let file = output.root.appendingPathComponent("exports/protego/PL/\(name)/index")
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let fixtures = WireCompatibilityTests.fixtures
            _ = try await WireCompatibilityTests.run(["protoc", "--python_out=\(work.path)", "-I", fixtures.path, "export_contract.proto"])
            let report = try await WireCompatibilityTests.run([
                WireCompatibilityTests.python, fixtures.appendingPathComponent("read_export.py").path, work.path, file.path, work.path,
            ])
            let json = try #require(try JSONSerialization.jsonObject(with: report) as? [String: Any])
            #expect(json["entries"] as? [String] == ["export.bin", "export.sig"])
            #expect(json["region"] as? String == "PL")
            #expect(json["keys"] as? [String] == [String(repeating: "14", count: 16)])
            #expect(try ExternalTool.opensslVerifiesOnlyTheSignedBytes(
                work.appendingPathComponent("export.bin"), signature: work.appendingPathComponent("signature.der"), publicKey: output.regionKey
            ))
        }
    }
}
