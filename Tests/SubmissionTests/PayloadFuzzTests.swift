import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import SwiftProtobuf
import Testing

@testable import Submission
@testable import SubmissionCore

/// Random and mutated upload bodies: the parser and the rules never crash and agree with the rules as the contract
/// states them (`SubmissionRulesOracle`, which shares no code with the validator), and over HTTP every body the rules
/// accept is answered 200 with exactly its keys stored, every other one 400 with nothing stored and no TAN spent.
/// `FUZZ_SEED=<n>` replays a run.
@Suite struct PayloadFuzzTests {
    let validator = SubmissionValidator(rules: .init())
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    /// A full upload as apps send it: fourteen keys, padding, countries, consent and the test type.
    static func appPayload(today: Int32, random: ByteMutator) -> [UInt8] {
        Payloads.bytes((1...14).map { day in
            var key = Payloads.key(0, today: today, daysAgo: Int32(day), risk: Int32(1 + day % 8), daysSinceOnset: Int32(day - 3))
            key.keyData = Data(random.random.bytes(count: 16))
            return key
        }) {
            $0.requestPadding = Data(random.random.bytes(count: 64))
            $0.visitedCountries = ["IT", "FR"]
            $0.origin = "DE"
            $0.consentToFederation = true
            $0.submissionType = .rapidTest
        }
    }

    /// Messages whose fields take extreme and out-of-range values: the arithmetic of the rules must not trap.
    static func extremePayload(today: Int32, random: ByteMutator) -> SubmissionPayload {
        let values: [Int32] = [.min, .min + 1, -4_000, -144, -1, 0, 1, 13, 14, 143, 144, 145, 4_000, today, today + 144, .max - 1, .max]
        return Payloads.payload((0..<random.int(0..<20)).map { _ in
            var key = TemporaryExposureKey()
            if random.chance(0.9) { key.keyData = Data(random.random.bytes(count: random.pick([0, 1, 15, 16, 16, 16, 17, 64]))) }
            if random.chance(0.9) { key.rollingStartIntervalNumber = random.chance(0.5) ? random.pick(values) : today - Int32(random.int(-3..<20)) * 144 }
            if random.chance(0.5) { key.rollingPeriod = random.pick(values) }
            if random.chance(0.7) { key.transmissionRiskLevel = random.pick(values + [1, 2, 3, 4, 5, 6, 7, 8]) }
            if random.chance(0.5) { key.daysSinceOnsetOfSymptoms = random.pick(values + [-14, -1, 0, 1, 21, 4_000]) }
            if random.chance(0.2) { key.reportType = random.pick([.unknown, .confirmedTest, .selfReport, .revoked]) }
            return key
        }) {
            if random.chance(0.5) { $0.origin = random.pick(["", "DE", "de", "XX", "DEU", "🇩🇪", "\0"]) }
            if random.chance(0.5) { $0.visitedCountries = (0..<random.int(0..<40)).map { _ in random.pick(["IT", "", "it", "ZZ", "ITA", "\u{0}"]) } }
            if random.chance(0.5) { $0.submissionType = SubmissionType(rawValue: random.int(-1..<12)) ?? .pcrTest }
            if random.chance(0.3) { $0.consentToFederation = random.chance(0.5) }
        }
    }

    /// Parses and checks `bytes` as the service does; the only possible outcomes are a submission or a
    /// rejection (the typed throws), and a crash would end the test run. Either must be the oracle's answer: the
    /// same verdict and, for a submission, the same keys.
    func check(_ bytes: [UInt8]) -> Bool {
        let expected = SubmissionRulesOracle.storedKeys(bytes, now: now)
        do {
            let submission = try validator.validate(try validator.parse(bytes), now: now)
            let keys = submission.keys.map {
                SubmissionRulesOracle.StoredKey(
                    keyData: $0.keyData, rollingStart: $0.rollingStartIntervalNumber, rollingPeriod: $0.rollingPeriod,
                    transmissionRisk: $0.transmissionRiskLevel)
            }
            #expect(keys == expected, "\(Data(bytes).base64EncodedString())")
            return true
        } catch {
            #expect(!error.message.isEmpty)
            #expect(expected == nil, "refused (\(error.message)) but the rules accept \(Data(bytes).base64EncodedString())")
            return false
        }
    }

    @Test func randomAndMutatedBodiesNeverCrashTheParserOrTheRules() throws {
        let fuzz = ByteMutator(defaultSeed: 20_261_122)
        let today = Payloads.today(now)
        var accepted = 0, refused = 0
        for _ in 0..<5_000 {
            check(fuzz.bytes(maxCount: 2_000)) ? (accepted += 1) : (refused += 1)
        }
        for _ in 0..<20_000 {
            check(fuzz.mutate(Self.appPayload(today: today, random: fuzz))) ? (accepted += 1) : (refused += 1)
        }
        for _ in 0..<10_000 {
            let bytes: [UInt8] = try Self.extremePayload(today: today, random: fuzz).serializedBytes()
            check(fuzz.chance(0.5) ? bytes : fuzz.mutate(bytes)) ? (accepted += 1) : (refused += 1)
        }
        // Both outcomes occur, so the inputs reach past the first check.
        #expect(accepted > 100 && refused > 1_000, "accepted \(accepted), refused \(refused)")
    }

    @Test(arguments: TestDatabase.all)
    func overHTTPEveryBodyIsStoredWholeOrRefusedWithoutASideEffect(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let fuzz = ByteMutator(defaultSeed: 7_000_007)
            var statuses: [Int: Int] = [:]
            for round in 0..<400 {
                let body: [UInt8] = switch round % 4 {
                case 0: fuzz.bytes(maxCount: 1_500)
                case 1: fuzz.mutate(Self.appPayload(today: harness.today, random: fuzz))
                case 2: try Self.extremePayload(today: harness.today, random: fuzz).serializedBytes()
                default: Self.appPayload(today: harness.today, random: fuzz)
                }
                let storedBefore = try await harness.storedRows()
                let callsBefore = harness.verification.callCount
                let response = try await harness.submit(body, tan: harness.verification.issue())
                statuses[response.status, default: 0] += 1
                let storedAfter = try await harness.storedRows()
                // What the rows gained, as a multiset: the keys are random, so an upload's keys are new rows.
                let added = storedAfter.count - storedBefore.count
                let new = Set(storedAfter).subtracting(storedBefore)
                let expected = SubmissionRulesOracle.storedKeys(body, now: harness.clock.now())
                switch response.status {
                case 200:
                    let keys = try #require(expected, "round \(round): a body the rules refuse was accepted")
                    #expect(added == keys.count && new == Set(keys), "round \(round): stored \(new.sorted { $0.description < $1.description }), the rules keep \(keys)")
                case 400:
                    #expect(expected == nil, "round \(round): a valid body was refused: \(response.text)")
                    #expect(added == 0 && new.isEmpty, "round \(round): a refused body stored \(new)")
                    #expect(harness.verification.callCount == callsBefore, "round \(round): the TAN was checked for a refused body")
                    #expect(response.json["error"] is String, "round \(round): \(response.text)")
                default:
                    Issue.record("round \(round): status \(response.status) \(response.text)")
                }
            }
            // Both outcomes occur, and every unmutated upload (one in four) is accepted.
            #expect(statuses[400, default: 0] > 100 && statuses[200, default: 0] >= 100, "\(statuses)")
            print("payload fuzzing over HTTP (\(kind)): \(statuses.sorted { $0.key < $1.key })")
        }
    }
}
