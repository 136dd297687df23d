import Crypto
import ExposureRules
import Foundation
import Testing
@testable import SubmissionDomain

/// The ENX key server's rules for `/v1/publish` (design sheet enx.md, 2.9 and 3.4), before they are served.
@Suite struct ENXPublishRulesTests {
    /// 2025-06-15 15:06:40 UTC.
    static let now: Int64 = 1_750_000_000
    static var today: Int64 { UTCDay(containing: now).midnight / 600 }

    static func key(_ byte: UInt8, start: Int64, period: Int64 = 144, risk: Int64 = 0) -> ENXPublishedKey {
        ENXPublishedKey(key: Data(repeating: byte, count: 16).base64EncodedString(), rollingStartNumber: start, rollingPeriod: period, transmissionRisk: risk)
    }

    /// Fourteen daily keys up to yesterday pass, with the phone's text kept as sent.
    @Test func fourteenDailyKeysPass() throws {
        let keys = (1...14).map { Self.key(UInt8($0), start: Self.today - Int64($0) * 144) }
        let outcome = try ENXPublishValidator.validate(keys, now: Self.now)
        #expect(outcome.accepted.map(\.sent) == keys && outcome.dropped.isEmpty)
        #expect(outcome.accepted.allSatisfy { $0.data.count == 16 })
    }

    /// A bad key alone is dropped and the rest kept (200 `partial_failure` at the endpoint); a bad set is refused.
    @Test func aBadKeyIsDroppedAndABadSetRefused() throws {
        let good = Self.key(1, start: Self.today - 144)
        let bad = [
            ENXPublishedKey(key: Data(repeating: 2, count: 15).base64EncodedString(), rollingStartNumber: Self.today - 288, rollingPeriod: 144),
            Self.key(3, start: Self.today - 432, period: 0),
            Self.key(4, start: Self.today - 576, risk: 9),
            Self.key(5, start: Self.today - 16 * 144),
            Self.key(6, start: Self.now / 600 + 1, period: 1),
        ]
        let outcome = try ENXPublishValidator.validate([good] + bad, now: Self.now)
        #expect(outcome.accepted.map(\.sent) == [good] && outcome.dropped.count == 5)
        // A key that began 15 days ago but ended within the 360 hours is kept; URL-safe base64 is read.
        let edge = Self.key(7, start: (Self.now - 360 * 3600) / 600 - 100, period: 144)
        let urlSafe = ENXPublishedKey(key: Array(Data(repeating: 0xFB, count: 16)).base64URLString, rollingStartNumber: Self.today - 144 * 3, rollingPeriod: 144)
        #expect(try ENXPublishValidator.validate([edge, urlSafe], now: Self.now).accepted.count == 2)

        let refusals: [[ENXPublishedKey]] = [
            [],
            (0..<31).map { Self.key(UInt8($0), start: Self.today - Int64($0 + 1) * 144) },
            bad,
            (1...4).map { Self.key(UInt8($0), start: Self.today - 144, period: Int64(100 + $0)) },
            [Self.key(1, start: Self.today - 144), Self.key(2, start: Self.today - 100)],
            [Self.key(1, start: Self.today - 144), Self.key(1, start: Self.today - 288)],
        ]
        for keys in refusals {
            #expect(throws: ENXPublishRejection.self) { try ENXPublishValidator.validate(keys, now: Self.now) }
            do { _ = try ENXPublishValidator.validate(keys, now: Self.now) } catch { #expect(error.code == .badRequest && error.status == 400) }
        }
        // Three keys of one start (a GAEN 1.5 phone's early release and its successors) are fine.
        #expect(try ENXPublishValidator.validate((1...3).map { Self.key(UInt8($0), start: Self.today - 144, period: Int64(40 * $0)) }, now: Self.now).accepted.count == 3)
    }

    /// The report type in the export, the default risks, and days since onset as the reference computes them.
    @Test func reportTypesRisksAndOnsetAreTheReferences() {
        #expect(ENXReportType.allCases.map(ENXKeyReport.exportReportType) == [1, 2, 5, 3])
        #expect(ENXReportType.allCases.map { ENXKeyReport.transmissionRisk(sent: 0, reportType: $0) } == [2, 4, 6, 0])
        #expect(ENXKeyReport.transmissionRisk(sent: 7, reportType: .confirmed) == 7)

        let twoDaysAgo = UTCDay(containing: Self.now).adding(days: -2).midnight / 600
        #expect(ENXKeyReport.onset(requested: twoDaysAgo, certified: nil, now: Self.now) == (twoDaysAgo, false))
        // The phone's onset wins; one in the future or older than 28 days gives way to the certificate's.
        #expect(ENXKeyReport.onset(requested: twoDaysAgo - 144, certified: twoDaysAgo, now: Self.now) == (twoDaysAgo - 144, false))
        #expect(ENXKeyReport.onset(requested: Self.now / 600 + 1, certified: twoDaysAgo, now: Self.now) == (twoDaysAgo, false))
        #expect(ENXKeyReport.onset(requested: Self.today - 29 * 144, certified: twoDaysAgo, now: Self.now) == (twoDaysAgo, false))
        #expect(ENXKeyReport.onset(requested: Self.today - 28 * 144, certified: nil, now: Self.now) == (Self.today - 28 * 144, false))
        #expect(ENXKeyReport.onset(requested: nil, certified: nil, now: Self.now) == ((Self.now - 4 * 86400) / 600, true))

        #expect(ENXKeyReport.daysSinceOnset(keyStart: Self.today, onset: twoDaysAgo) == 2)
        #expect(ENXKeyReport.daysSinceOnset(keyStart: Self.today - 5 * 144 + 30, onset: twoDaysAgo + 70) == -3)
        #expect(ENXKeyReport.daysSinceOnset(keyStart: twoDaysAgo, onset: twoDaysAgo) == 0)
    }

    /// Likely may become confirmed or negative, a user report any test result; nothing else changes type.
    @Test func onlyTheReferencesTransitionsAreAllowed() {
        #expect(ENXReportTransition.isAllowed(from: .likely, to: .confirmed) && ENXReportTransition.isAllowed(from: .likely, to: .negative))
        #expect(ENXReportTransition.isAllowed(from: nil, to: .confirmed))
        #expect(ENXReportTransition.isAllowed(from: .userReport, to: .likely))
        #expect(!ENXReportTransition.isAllowed(from: .confirmed, to: .likely) && !ENXReportTransition.isAllowed(from: .negative, to: .confirmed))
        #expect(!ENXReportTransition.isAllowed(from: .likely, to: .userReport) && !ENXReportTransition.isAllowed(from: .likely, to: .likely))
    }

    /// A revision token opens only under its key and unaltered, and leaves out keys too old to publish again.
    @Test func aRevisionTokenOpensOnlyUnderItsKeyUnaltered() throws {
        let key = SymmetricKey(size: .bits256)
        let fresh = ENXRevisionToken.Key(key: "AAECAwQFBgcICQoLDA0ODw==", rollingStartNumber: Self.today - 144, rollingPeriod: 144)
        let old = ENXRevisionToken.Key(key: "EBESExQVFhcYGRobHB0eHw==", rollingStartNumber: Self.today - 16 * 144, rollingPeriod: 144)
        let token = try ENXRevisionToken(keys: [fresh, old]).seal(under: key, now: Self.now)
        #expect(ENXRevisionToken.open(token, under: key) == ENXRevisionToken(keys: [fresh]))
        #expect(ENXRevisionToken.open(token, under: SymmetricKey(size: .bits256)) == nil)
        var bytes = try #require(Data(base64Encoded: token))
        bytes[bytes.count / 2] ^= 1
        #expect(ENXRevisionToken.open(bytes.base64EncodedString(), under: key) == nil)
        #expect(ENXRevisionToken.open("not a token", under: key) == nil)
        // Two seals of the same keys differ (a fresh nonce each), so a token says nothing about another.
        #expect(try ENXRevisionToken(keys: [fresh]).seal(under: key, now: Self.now) != ENXRevisionToken(keys: [fresh]).seal(under: key, now: Self.now))
    }
}
