import ExposureCore
import ExposureProtocol
import Foundation
@testable import SubmissionDomain
import SwiftProtobuf
@testable import TestResultDomain
import Testing

@testable import Submission
@testable import SubmissionCore

/// Every rule of the contract, without HTTP or a database.
@Suite struct SubmissionValidatorTests {
    let validator = SubmissionValidator(rules: .init())
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    var today: Int32 { Payloads.today(now) }

    func rejection(_ payload: SubmissionPayload) -> SubmissionRejection.Reason? {
        do {
            _ = try validator.validate(payload, now: now)
            return nil
        } catch {
            return error.reason
        }
    }

    func key(_ byte: UInt8 = 1, daysAgo: Int32 = 1, risk: Int32? = 5, days: Int32? = nil, period: Int32? = nil) -> TemporaryExposureKey {
        Payloads.key(byte, today: today, daysAgo: daysAgo, risk: risk, daysSinceOnset: days, period: period)
    }

    @Test func aValidPayloadKeepsEveryField() throws {
        let payload = Payloads.payload([key(1, risk: 6, days: -2, period: 100)]) {
            $0.origin = "DE"
            $0.visitedCountries = ["IT", "FR", "IT"]
            $0.consentToFederation = true
            $0.submissionType = .rapidTest
        }
        let result = try validator.validate(payload, now: now)
        #expect(result.dropped.isEmpty)
        #expect(result.keys == [DiagnosisKey(
            keyData: Data(repeating: 1, count: 16), rollingStartIntervalNumber: today - 144, rollingPeriod: 100,
            transmissionRiskLevel: 6, daysSinceOnsetOfSymptoms: -2, reportType: 1, originCountry: "DE",
            visitedCountries: ["FR", "IT"], consentToFederation: true, submissionType: 1
        )])
    }

    @Test func absentFieldsTakeTheirDefaults() throws {
        let result = try validator.validate(Payloads.payload([key(1)]), now: now)
        let stored = try #require(result.keys.first)
        #expect(stored.rollingPeriod == 144)
        #expect(stored.reportType == 1)
        #expect(stored.originCountry == "DE")
        #expect(stored.visitedCountries.isEmpty)
        #expect(!stored.consentToFederation)
        #expect(stored.submissionType == 0)
        // An empty origin counts as absent.
        #expect(try validator.validate(Payloads.payload([key(1)]) { $0.origin = "" }, now: now).keys.first?.originCountry == "DE")
    }

    @Test func unparsableBytesAreRefused() {
        #expect(throws: SubmissionRejection(.unparsable, "The body is not a valid SubmissionPayload protocol buffer.")) {
            try validator.parse([0x0A, 0xFF, 0xFF, 0xFF])
        }
        // A key field that is not a message.
        #expect(throws: SubmissionRejection.self) { try validator.parse([0x0A, 0x02, 0xFF, 0xFF]) }
    }

    @Test func keyCountMustBeOneToTheMaximum() {
        #expect(rejection(Payloads.payload([])) == .keyCount)
        #expect(rejection(Payloads.payload((1...14).map { key(UInt8($0), daysAgo: Int32($0 % 14)) })) == nil)
        #expect(rejection(Payloads.payload((1...15).map { key(UInt8($0), daysAgo: Int32($0 % 14)) })) == .keyCount)
        let strict = SubmissionValidator(rules: .init(maxKeys: 2))
        #expect(throws: SubmissionRejection.self) { try strict.validate(Payloads.payload([key(1), key(2), key(3)]), now: now) }
    }

    @Test func keyDataMustBeSixteenBytes() {
        for length in [0, 15, 17, 32] {
            var bad = key(1)
            bad.keyData = Data(repeating: 7, count: length)
            #expect(rejection(Payloads.payload([bad])) == .keyData, "length \(length)")
        }
    }

    @Test func keysStartAtMidnight() {
        var bad = key(1)
        bad.rollingStartIntervalNumber += 1
        #expect(rejection(Payloads.payload([bad])) == .rollingStartInterval)
        bad.rollingStartIntervalNumber = -100
        #expect(rejection(Payloads.payload([bad])) == .rollingStartInterval)
    }

    @Test func rollingPeriodIsOneTo144() {
        #expect(rejection(Payloads.payload([key(1, period: 0)])) == .rollingPeriod)
        #expect(rejection(Payloads.payload([key(1, period: 145)])) == .rollingPeriod)
        #expect(rejection(Payloads.payload([key(1, period: -1)])) == .rollingPeriod)
        #expect(rejection(Payloads.payload([key(1, period: 1)])) == nil)
        #expect(rejection(Payloads.payload([key(1, period: 144)])) == nil)
    }

    @Test func eachKeyCarriesARiskLevelOrDaysSinceOnset() throws {
        #expect(rejection(Payloads.payload([key(1, risk: nil, days: nil)])) == .transmissionRisk)
        #expect(rejection(Payloads.payload([key(1, risk: 0)])) == .transmissionRisk)
        #expect(rejection(Payloads.payload([key(1, risk: 9)])) == .transmissionRisk)
        #expect(rejection(Payloads.payload([key(1, risk: nil, days: -15)])) == .transmissionRisk)
        #expect(rejection(Payloads.payload([key(1, risk: nil, days: 4001)])) == .transmissionRisk)
        #expect(rejection(Payloads.payload([key(1, risk: 3, days: 4001)])) == .transmissionRisk)
        // The missing one is derived from the mapping.
        let result = try validator.validate(Payloads.payload([key(1, risk: 8, days: nil), key(2, risk: nil, days: -4), key(3, risk: 1, days: 3)]), now: now)
        #expect(result.keys.map(\.transmissionRiskLevel) == [8, 4, 1])
        #expect(result.keys.map(\.daysSinceOnsetOfSymptoms) == [0, -4, 3])
    }

    @Test func originMustBeTheHomeCountry() {
        #expect(rejection(Payloads.payload([key()]) { $0.origin = "FR" }) == .origin)
        #expect(rejection(Payloads.payload([key()]) { $0.origin = "de" }) == .origin)
        #expect(rejection(Payloads.payload([key()]) { $0.origin = "DE" }) == nil)
        let austrian = SubmissionValidator(rules: .init(homeCountry: "AT"))
        #expect(throws: SubmissionRejection.self) { try austrian.validate(Payloads.payload([key()]) { $0.origin = "DE" }, now: now) }
    }

    @Test func visitedCountriesMustBeSupported() {
        #expect(rejection(Payloads.payload([key()]) { $0.visitedCountries = ["FR", "XX"] }) == .visitedCountries)
        #expect(rejection(Payloads.payload([key()]) { $0.visitedCountries = ["fr"] }) == .visitedCountries)
        #expect(rejection(Payloads.payload([key()]) { $0.visitedCountries = ["US"] }) == .visitedCountries)
        #expect(rejection(Payloads.payload([key()]) { $0.visitedCountries = Countries.europeanDefault }) == nil)
    }

    @Test func onlyTestBackedSubmissionTypesAreAccepted() throws {
        #expect(rejection(Payloads.payload([key()]) { $0.submissionType = .pcrTest }) == nil)
        #expect(rejection(Payloads.payload([key()]) { $0.submissionType = .rapidTest }) == nil)
        for type in [SubmissionType.hostWarning, .srsSelfTest, .srsRegisteredRat, .srsUnregisteredRat, .srsRegisteredPcr, .srsUnregisteredPcr, .srsRapidPcr, .srsOther] {
            #expect(rejection(Payloads.payload([key()]) { $0.submissionType = type }) == .submissionType, "\(type)")
        }
        // A value the schema does not know must not pass as the default (PCR): field 7, varint 42.
        let unknownType = try validator.parse(Payloads.bytes([key()]) + [0x38, 42])
        #expect(unknownType.submissionType == .pcrTest)
        #expect(rejection(unknownType) == .submissionType)
        // Other unknown fields (newer apps) are fine: field 15, varint 1.
        #expect(rejection(try validator.parse(Payloads.bytes([key()]) + [0x78, 1])) == nil)
    }

    @Test func unusableKeysAreDroppedSilently() throws {
        var zero = key(1)
        zero.rollingStartIntervalNumber = 0
        var negative = key(2)
        negative.rollingStartIntervalNumber = -144
        let future = key(3, daysAgo: -1)
        let tooOld = key(4, daysAgo: 15)
        let oldest = key(5, daysAgo: 14)
        let todays = key(6, daysAgo: 0)
        let repeated = key(6, daysAgo: 2)
        let result = try validator.validate(Payloads.payload([zero, negative, future, tooOld, oldest, todays, repeated]), now: now)
        #expect(result.keys.map(\.keyData) == [Data(repeating: 5, count: 16), Data(repeating: 6, count: 16)])
        #expect(result.dropped == [.startIntervalNotPositive: 2, .future: 1, .tooOld: 1, .duplicateInPayload: 1])
        // Every key dropped is still a valid submission.
        #expect(try validator.validate(Payloads.payload([future]), now: now).keys.isEmpty)
    }

    @Test func structuralRulesApplyToKeysThatWouldBeDropped() {
        // A broken key is a broken payload, even if the key would not have been stored.
        var broken = key(1, daysAgo: 20)
        broken.keyData = Data(count: 3)
        #expect(rejection(Payloads.payload([broken])) == .keyData)
    }

    @Test func tanHeaderMustBeAUUID() {
        let tan = Codes.uuidV4(using: SeededRandomSource(seed: 1))
        #expect(TANHeader.normalized(tan) == tan)
        #expect(TANHeader.normalized(tan.uppercased()) == tan)
        #expect(TANHeader.normalized("TAN " + tan) == nil)
        #expect(TANHeader.normalized("") == nil)
        #expect(TANHeader.normalized("not-a-uuid") == nil)
        #expect(TANHeader.normalized(String(tan.dropLast()) + "g") == nil)
    }

    @Test func unknownFieldScannerReadsFieldNumbers() {
        #expect(ProtobufUnknownFields.fieldNumbers(in: Data([0x38, 0x2A, 0x7A, 0x01, 0x00, 0x0D, 1, 2, 3, 4])) == [7, 15, 1])
        #expect(ProtobufUnknownFields.fieldNumbers(in: Data([0x7A, 0x05, 0x00])) == nil)
        #expect(ProtobufUnknownFields.fieldNumbers(in: Data()) == [])
    }

    @Test func keyPaddingAddsRandomCompanions() throws {
        let keys = try validator.validate(Payloads.payload([key(1), key(2, daysAgo: 2)]), now: now).keys
        #expect(KeyPadding(multiplier: 1).companions(for: keys, random: SeededRandomSource(seed: 1)).isEmpty)
        let companions = KeyPadding(multiplier: 3).companions(for: keys, random: SeededRandomSource(seed: 1))
        #expect(companions.count == 4)
        #expect(Set(companions.map(\.keyData)).count == 4)
        #expect(companions.allSatisfy { $0.keyData.count == 16 && !keys.map(\.keyData).contains($0.keyData) })
        #expect(companions.map(\.rollingStartIntervalNumber) == [keys[0], keys[0], keys[1], keys[1]].map(\.rollingStartIntervalNumber))
    }
}
