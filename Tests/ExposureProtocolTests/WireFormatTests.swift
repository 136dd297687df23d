import Foundation
import SwiftProtobuf
import Testing

@testable import ExposureProtocol

/// Expected bytes below were worked out by hand from the protobuf encoding rules
/// (tag = field << 3 | wire type; base-128 varints; zigzag for sint32; fixed64 little-endian)
/// and cross-checked with a plain varint routine in Python, not with a protobuf library.
@Suite("Wire format")
struct WireFormatTests {
    static let keyData = Data((1...16).map { UInt8($0) })

    static func sampleKey() -> TemporaryExposureKey {
        var key = TemporaryExposureKey()
        key.keyData = keyData
        key.transmissionRiskLevel = 5
        key.rollingStartIntervalNumber = 2_700_000
        key.rollingPeriod = 144
        key.reportType = .confirmedTest
        key.daysSinceOnsetOfSymptoms = -3
        return key
    }

    static let sampleKeyBytes: [UInt8] = [
        0x0A, 0x10,  // field 1 (key_data), length-delimited, 16 bytes
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10,
        0x10, 0x05,  // field 2 (transmission_risk_level), varint 5
        0x18, 0xE0, 0xE5, 0xA4, 0x01,  // field 3 (rolling_start_interval_number), varint 2_700_000
        0x20, 0x90, 0x01,  // field 4 (rolling_period), varint 144
        0x28, 0x01,  // field 5 (report_type), CONFIRMED_TEST
        0x30, 0x05,  // field 6 (days_since_onset_of_symptoms), zigzag(-3) = 5
    ]

    @Test func temporaryExposureKeyEncodesToExpectedBytes() throws {
        let bytes: [UInt8] = try Self.sampleKey().serializedBytes()
        #expect(bytes == Self.sampleKeyBytes)
    }

    @Test func temporaryExposureKeyDecodesFromExpectedBytes() throws {
        let key = try TemporaryExposureKey(serializedBytes: Self.sampleKeyBytes)
        #expect(key == Self.sampleKey())
        #expect(key.keyData == Self.keyData)
        #expect(key.transmissionRiskLevel == 5)
        #expect(key.rollingStartIntervalNumber == 2_700_000)
        #expect(key.rollingPeriod == 144)
        #expect(key.reportType == .confirmedTest)
        #expect(key.daysSinceOnsetOfSymptoms == -3)
        #expect(key.unknownFields.data.isEmpty)
    }

    @Test func sint32UsesZigzag() throws {
        var key = TemporaryExposureKey()
        key.daysSinceOnsetOfSymptoms = -14
        #expect(try key.serializedBytes() == [0x30, 0x1B] as [UInt8])  // zigzag(-14) = 27
        key.daysSinceOnsetOfSymptoms = 4000
        #expect(try key.serializedBytes() == [0x30, 0xC0, 0x3E] as [UInt8])  // zigzag(4000) = 8000
    }

    @Test func absentFieldsReadAsContractDefaults() throws {
        let key = try TemporaryExposureKey(serializedBytes: [UInt8]())
        #expect(key.rollingPeriod == 144)
        #expect(!key.hasRollingPeriod)
        #expect(key.reportType == .confirmedTest)
        #expect(!key.hasReportType)
        #expect(!key.hasTransmissionRiskLevel)
        #expect(!key.hasDaysSinceOnsetOfSymptoms)
        #expect(try TemporaryExposureKey().serializedBytes() == [UInt8]())
    }

    @Test func reportTypeNumbers() {
        let expected: [(TemporaryExposureKey.ReportType, Int)] = [
            (.unknown, 0), (.confirmedTest, 1), (.confirmedClinicalDiagnosis, 2),
            (.selfReport, 3), (.recursive, 4), (.revoked, 5),
        ]
        for (type, number) in expected { #expect(type.rawValue == number) }
    }

    @Test func exportTimestampsAreFixed64LittleEndian() throws {
        var export = TemporaryExposureKeyExport()
        export.startTimestamp = 1_600_000_000
        export.endTimestamp = 1_600_003_600
        export.region = "DE"
        export.batchNum = 1
        export.batchSize = 1
        let bytes: [UInt8] = try export.serializedBytes()
        #expect(bytes == [
            0x09, 0x00, 0x10, 0x5E, 0x5F, 0x00, 0x00, 0x00, 0x00,  // field 1, fixed64 1_600_000_000
            0x11, 0x10, 0x1E, 0x5E, 0x5F, 0x00, 0x00, 0x00, 0x00,  // field 2, fixed64 1_600_003_600
            0x1A, 0x02, 0x44, 0x45,  // field 3, "DE"
            0x20, 0x01,  // field 4, batch_num 1
            0x28, 0x01,  // field 5, batch_size 1
        ])
        #expect(try TemporaryExposureKeyExport(serializedBytes: bytes) == export)
    }

    @Test func exportRoundTrip() throws {
        var info = SignatureInfo()
        info.verificationKeyVersion = "v1"
        info.verificationKeyID = "262"
        info.signatureAlgorithm = "1.2.840.10045.4.3.2"

        var export = TemporaryExposureKeyExport()
        export.startTimestamp = 1_700_000_000
        export.endTimestamp = 1_700_003_600
        export.region = "DE"
        export.batchNum = 1
        export.batchSize = 1
        export.signatureInfos = [info]
        export.keys = [Self.sampleKey(), Self.sampleKey()]

        let bytes: [UInt8] = try export.serializedBytes()
        let decoded = try TemporaryExposureKeyExport(serializedBytes: bytes)
        #expect(decoded == export)
        #expect(!decoded.signatureInfos[0].hasAppBundleID)
        #expect(!decoded.signatureInfos[0].hasAndroidPackage)
        // Field 7 (keys) carries exactly the bytes of each key.
        let keyField: [UInt8] = [0x3A, UInt8(Self.sampleKeyBytes.count)] + Self.sampleKeyBytes
        #expect(Array(bytes.suffix(2 * keyField.count)) == keyField + keyField)
    }

    @Test func signatureListRoundTrip() throws {
        var info = SignatureInfo()
        info.verificationKeyVersion = "v1"
        info.verificationKeyID = "262"
        info.signatureAlgorithm = "1.2.840.10045.4.3.2"
        var signature = TEKSignature()
        signature.signatureInfo = info
        signature.batchNum = 1
        signature.batchSize = 1
        signature.signature = Data([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02])
        var list = TEKSignatureList()
        list.signatures = [signature]

        let bytes: [UInt8] = try list.serializedBytes()
        #expect(bytes.first == 0x0A)  // field 1, length-delimited
        #expect(try TEKSignatureList(serializedBytes: bytes) == list)
    }
}

@Suite("Submission payload")
struct SubmissionPayloadTests {
    static func samplePayload() -> SubmissionPayload {
        var payload = SubmissionPayload()
        payload.keys = [WireFormatTests.sampleKey()]
        payload.requestPadding = Data(repeating: 0x41, count: 20)
        payload.visitedCountries = ["FR", "IT"]
        payload.origin = "DE"
        payload.consentToFederation = true
        payload.submissionType = .rapidTest
        return payload
    }

    @Test func roundTrip() throws {
        let payload = Self.samplePayload()
        let bytes: [UInt8] = try payload.serializedBytes()
        let decoded = try SubmissionPayload(serializedBytes: bytes)
        #expect(decoded == payload)
        #expect(decoded.submissionType == .rapidTest)
        #expect(decoded.keys.first?.daysSinceOnsetOfSymptoms == -3)
    }

    @Test func decodesAppShapedBytes() throws {
        // As an app would send it: one key, origin, visited country, consent, rapid test, and a
        // deprecated check-in (an embedded message, opaque to us).
        let bytes: [UInt8] =
            [0x0A, UInt8(WireFormatTests.sampleKeyBytes.count)] + WireFormatTests.sampleKeyBytes
            + [0x12, 0x03, 0x00, 0x00, 0x00]  // 2 requestPadding
            + [0x1A, 0x02, 0x46, 0x52]  // 3 visitedCountries "FR"
            + [0x22, 0x02, 0x44, 0x45]  // 4 origin "DE"
            + [0x28, 0x01]  // 5 consentToFederation true
            + [0x32, 0x04, 0x08, 0x01, 0x10, 0x02]  // 6 checkIns: one embedded message
            + [0x38, 0x01]  // 7 submissionType RAPID_TEST
        let payload = try SubmissionPayload(serializedBytes: bytes)
        #expect(payload.keys == [WireFormatTests.sampleKey()])
        #expect(payload.requestPadding == Data([0, 0, 0]))
        #expect(payload.visitedCountries == ["FR"])
        #expect(payload.origin == "DE")
        #expect(payload.consentToFederation)
        #expect(payload.checkIns == [Data([0x08, 0x01, 0x10, 0x02])])
        #expect(payload.submissionType == .rapidTest)
    }

    @Test func submissionTypeDefaultsToPCR() throws {
        let payload = try SubmissionPayload(serializedBytes: [0x22, 0x02, 0x44, 0x45] as [UInt8])
        #expect(payload.submissionType == .pcrTest)
        #expect(!payload.hasSubmissionType)
    }

    @Test(arguments: 0...9)
    func submissionTypeNumbers(number: Int) throws {
        let payload = try SubmissionPayload(serializedBytes: [0x38, UInt8(number)] as [UInt8])
        #expect(payload.hasSubmissionType)
        #expect(payload.submissionType.rawValue == number)
    }

    @Test func unknownSubmissionTypeIsKeptAsUnknownField() throws {
        // proto2 enums are closed: a number we do not know is not an error, it lands in the
        // unknown fields and the getter reports the default.
        let payload = try SubmissionPayload(serializedBytes: [0x38, 0x2A] as [UInt8])
        #expect(!payload.hasSubmissionType)
        #expect(payload.submissionType == .pcrTest)
        #expect(Array(payload.unknownFields.data) == [0x38, 0x2A])
    }

    @Test func unknownFieldsAreTolerated() throws {
        let known: [UInt8] = try Self.samplePayload().serializedBytes()
        let bytes = known
            + [0x98, 0x06, 0x2A]  // field 99, varint 42
            + [0x9A, 0x06, 0x03, 0x61, 0x62, 0x63]  // field 99, length-delimited "abc"
        let decoded = try SubmissionPayload(serializedBytes: bytes)
        #expect(decoded.keys == Self.samplePayload().keys)
        #expect(decoded.origin == "DE")
        #expect(decoded.submissionType == .rapidTest)
        #expect(Array(decoded.unknownFields.data) == [0x98, 0x06, 0x2A, 0x9A, 0x06, 0x03, 0x61, 0x62, 0x63])
    }

    @Test func truncatedInputIsRejected() {
        let bytes = Array(WireFormatTests.sampleKeyBytes.prefix(10))
        #expect(throws: (any Error).self) { try TemporaryExposureKey(serializedBytes: bytes) }
        #expect(throws: (any Error).self) {
            try SubmissionPayload(serializedBytes: [0x0A, 0x20, 0x0A] as [UInt8])
        }
    }
}

@Suite("Export file")
struct ExportFileFormatTests {
    @Test func headerIsSixteenBytes() {
        #expect(ExportFileFormat.header.count == 16)
        #expect(ExportFileFormat.header == [
            0x45, 0x4B, 0x20, 0x45, 0x78, 0x70, 0x6F, 0x72, 0x74, 0x20, 0x76, 0x31,  // "EK Export v1"
            0x20, 0x20, 0x20, 0x20,  // four spaces
        ])
    }

    @Test func buildAndParse() throws {
        var export = TemporaryExposureKeyExport()
        export.startTimestamp = 1_600_000_000
        export.endTimestamp = 1_600_003_600
        export.region = "DE"
        export.batchNum = 1
        export.batchSize = 1
        export.keys = [WireFormatTests.sampleKey()]

        let bytes = try ExportFileFormat.exportBinary(export)
        #expect(Array(bytes.prefix(16)) == ExportFileFormat.header)
        #expect(Array(bytes.dropFirst(16)) == (try export.serializedBytes() as [UInt8]))
        #expect(try ExportFileFormat.parseExportBinary(bytes) == export)
        #expect(try ExportFileFormat.parseExportBinary(Data(bytes)) == export)
    }

    @Test func emptyExportIsJustTheHeader() throws {
        let bytes = try ExportFileFormat.exportBinary(TemporaryExposureKeyExport())
        #expect(bytes == ExportFileFormat.header)
        #expect(try ExportFileFormat.parseExportBinary(bytes) == TemporaryExposureKeyExport())
    }

    @Test func missingHeaderIsRejected() throws {
        var export = TemporaryExposureKeyExport()
        export.region = "DE"
        let body: [UInt8] = try export.serializedBytes()
        #expect(throws: ExportFileError.missingHeader) { try ExportFileFormat.parseExportBinary(body) }
        #expect(throws: ExportFileError.missingHeader) { try ExportFileFormat.parseExportBinary([UInt8]()) }
        #expect(throws: ExportFileError.missingHeader) {
            try ExportFileFormat.parseExportBinary(Array("EK Export v1".utf8))
        }
        #expect(throws: ExportFileError.missingHeader) {
            try ExportFileFormat.parseExportBinary(Array("EK Export v2    ".utf8) + body)
        }
        #expect(ExportFileError.missingHeader.description.contains("EK Export v1"))
    }

    @Test func malformedBodyIsRejected() {
        #expect {
            try ExportFileFormat.parseExportBinary(ExportFileFormat.header + [0x3A, 0x7F, 0x00])
        } throws: { error in
            guard case .malformedExport = error as? ExportFileError else { return false }
            return true
        }
    }
}

@Suite("App configuration")
struct AppConfigTests {
    @Test func roundTrip() throws {
        var config = ApplicationConfiguration()
        config.minRiskScore = 11
        config.exposureDetection.attenuationScores = [0, 1, 2, 3, 4, 5, 6, 8]
        config.exposureDetection.attenuationWeight = 50
        config.exposureDetection.transmissionRiskScores = [1, 2, 3, 4, 5, 6, 7, 8]
        config.exposureDetection.transmissionRiskWeight = 50
        config.attenuationDuration.lowerThresholdDb = 55
        config.attenuationDuration.upperThresholdDb = 63
        config.attenuationDuration.nearWeight = 1
        config.attenuationDuration.mediumWeight = 0.5
        config.attenuationDuration.farWeight = 0
        config.attenuationDuration.riskScoreNormalizationDivisor = 25
        var low = RiskScoreClass()
        low.label = "LOW"
        low.min = 0
        low.max = 15
        var high = RiskScoreClass()
        high.label = "HIGH"
        high.min = 15
        high.max = 9999
        config.riskScoreClasses = [low, high]
        config.daysSinceOnsetInfectiousness = (-14...14).map { day in
            var entry = DaysSinceOnsetInfectiousness()
            entry.daysSinceOnset = Int32(day)
            entry.infectiousness = abs(day) <= 2 ? .high : (abs(day) <= 7 ? .standard : .none)
            return entry
        }
        config.transmissionRiskValues = (1...8).map { level in
            var value = TransmissionRiskValue()
            value.transmissionRiskLevel = Int32(level)
            value.value = Double(level) * 0.2
            return value
        }
        config.supportedCountries = ["DE"]

        let bytes: [UInt8] = try config.serializedBytes()
        #expect(try ApplicationConfiguration(serializedBytes: bytes) == config)
    }

    @Test func normalizationDivisorDefaultsToOne() {
        #expect(AttenuationDurationParameters().riskScoreNormalizationDivisor == 1)
    }
}
