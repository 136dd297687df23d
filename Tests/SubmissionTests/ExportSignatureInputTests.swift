import Crypto
import ExposureCore
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore

/// The bytes every key file's signature covers (`export.bin`: the 16-byte header and the serialized export), pinned by
/// a known answer computed apart from this code: Python's protobuf over the fixture `export_contract.proto`, written
/// from the contract. A change to what is exported (a field, its encoding, the re-encoded risk) changes what phones
/// verify, and must show here.
///
///     import export_contract_pb2 as c   # protoc --python_out from Tests/SubmissionTests/Fixtures/export_contract.proto
///     e = c.ContractExport(start_timestamp=1_700_000_000, end_timestamp=1_700_003_600, region="DE", batch_num=1, batch_size=1)
///     e.signature_infos.add(app_bundle_id="de.rki.coronawarnapp", verification_key_version="v1",
///                           verification_key_id="262", signature_algorithm="1.2.840.10045.4.3.2")
///     e.keys.add(key_data=bytes(range(1, 17)), transmission_risk_level=7, rolling_start_interval_number=2_799_936,
///                rolling_period=144, report_type=1, days_since_onset_of_symptoms=1)
///     (b"EK Export v1    " + e.SerializeToString()).hex()
@Suite struct ExportSignatureInputTests {
    static let knownAnswer = "454b204578706f7274207631202020200900f15365000000001110ff5365000000001a0244452001280132340a1464652e726b692e636f726f6e"
        + "617761726e6170701a02763122033236322a13312e322e3834302e31303034352e342e332e323a200a100102030405060708090a0b0c0d0e0f1010"
        + "0718c0f2aa0120900128013002"

    @Test func theSignedBytesAreTheContractsEncodingAndTheSignatureCoversThem() throws {
        let key = P256.Signing.PrivateKey()
        let signer = ExportSigner(
            privateKey: key, signatureInfo: ExportSigner.signatureInfo(appBundleID: "de.rki.coronawarnapp", keyVersion: "v1", keyID: "262")
        )
        // Risk level 7 is exported as report type 1 (confirmed test) and 1 day since onset (odd level).
        let exportable = ExportableKey(
            keyData: Array(1...16), rollingStartIntervalNumber: 2_799_936, rollingPeriod: 144, transmissionRiskLevel: 7, submissionHour: 0
        )
        let zip = try ExportArchive.make(
            keys: [exportable], batch: .init(startTimestamp: 1_700_000_000, endTimestamp: 1_700_003_600, region: "DE"), signers: ExportSignerSet(signer)
        )
        let (binary, _, signatures) = try ExportArchive.read(zip)
        #expect(binary.hexString == Self.knownAnswer)
        let signature = try P256.Signing.ECDSASignature(derRepresentation: try #require(signatures.signatures.first).signature)
        #expect(key.publicKey.isValidSignature(signature, for: binary))
    }
}
