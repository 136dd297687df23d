import ExposureRules
import Foundation
import Testing
@testable import VerificationDomain

/// Issue #61: the rules of Google's verification server for issuing ENX codes, in the reference's order
/// (shared/design/enx.md, 2.4 and 3.5), before any endpoint serves them.
@Suite struct ENXIssueRulesTests {
    /// 2020-11-22 11:20:00 UTC.
    static let now: Int64 = 1_606_044_000
    static let settings = ENXCodeSettings()

    static func order(_ request: ENXIssueOrder.Request, settings: ENXCodeSettings = settings) -> Result<ENXIssueOrder, ENXRefusal> {
        do throws(ENXRefusal) { return .success(try ENXIssueOrder(request, settings: settings, now: now)) } catch { return .failure(error) }
    }

    static func refusal(_ request: ENXIssueOrder.Request, settings: ENXCodeSettings = settings) -> String? {
        if case .failure(let refusal) = order(request, settings: settings) { return "\(refusal.status) \(refusal.errorCode)" }
        return nil
    }

    @Test func datesAreCheckedAsTheReferenceChecksThem() throws {
        let good = try #require(try? Self.order(.init(testType: "Confirmed", symptomDate: "2020-11-20")).get())
        #expect(good.testType == "confirmed" && good.symptomDate?.description == "2020-11-20" && good.testDate == nil && good.uuid == nil)
        #expect(Self.refusal(.init(testType: "confirmed")) == "400 missing_date")
        #expect(Self.refusal(.init(testType: "confirmed", symptomDate: "", testDate: "")) == "400 missing_date")
        var optional = Self.settings
        optional.requireDate = false
        #expect(Self.refusal(.init(testType: "confirmed"), settings: optional) == nil)
        #expect(Self.refusal(.init(testType: "confirmed", symptomDate: "2020/11/20")) == "400 unparsable_request")
        #expect(Self.refusal(.init(testType: "confirmed", testDate: "2020-02-30")) == "400 unparsable_request")
        // Today is the last day; 28 days back the first, and one more for a caller behind UTC.
        #expect(Self.refusal(.init(testType: "confirmed", symptomDate: "2020-11-22")) == nil)
        #expect(Self.refusal(.init(testType: "confirmed", symptomDate: "2020-11-23")) == "400 invalid_date")
        #expect(Self.refusal(.init(testType: "confirmed", testDate: "2020-10-25")) == nil)
        #expect(Self.refusal(.init(testType: "confirmed", testDate: "2020-10-24")) == "400 invalid_date")
        #expect(Self.refusal(.init(testType: "confirmed", testDate: "2020-10-24", tzOffset: -300)) == nil)
        #expect(Self.refusal(.init(testType: "confirmed", testDate: "2020-10-23", tzOffset: -300)) == "400 invalid_date")
        // The symptom date is checked first.
        #expect(Self.refusal(.init(testType: "confirmed", symptomDate: "2020-12-01", testDate: "soon")) == "400 invalid_date")
    }

    @Test func aPhoneIsRefusedWithoutACodeAndTheUUIDIsTrimmed() throws {
        #expect(Self.refusal(.init(testType: "confirmed", symptomDate: "2020-11-20", phone: "+12065551234")) == "400 ")
        #expect(Self.refusal(.init(testType: "confirmed", symptomDate: "2020-11-20", onlyGenerateSMS: true)) == "400 unparsable_request")
        let uuid = try Self.order(.init(testType: "likely", testDate: "2020-11-21", uuid: " 7B0E3D1A-1C2D-4E5F-8A9B-0C1D2E3F4A5B\u{0} ")).get()
        #expect(uuid.uuid == "7b0e3d1a-1c2d-4e5f-8a9b-0c1d2e3f4a5b")
        #expect(Self.refusal(.init(testType: "likely", testDate: "2020-11-21", uuid: "not-a-uuid")) == "400 unparsable_request")
        #expect(Self.refusal(.init(testType: "likely", testDate: "2020-11-21", externalIssuerID: String(repeating: "x", count: 256))) == "400 unparsable_request")
        #expect(try Self.order(.init(testType: "likely", testDate: "2020-11-21", uuid: "  ")).get().uuid == nil)
    }

    /// The type is checked last (after the uuid's conflict): none of the four is invalid, one the authority does not
    /// issue (a user report, here) unsupported.
    @Test func theTestTypeIsCheckedAfterTheUUID() throws {
        func type(_ text: String, settings: ENXCodeSettings = Self.settings) throws -> String {
            let order = try Self.order(.init(testType: text, symptomDate: "2020-11-20"), settings: settings).get()
            do throws(ENXRefusal) { return try order.checkTestType(settings: settings).rawValue } catch { return "\(error.status) \(error.errorCode)" }
        }
        #expect(try type("LIKELY") == "likely")
        #expect(try type("positive") == "400 invalid_test_type")
        #expect(try type("user-report") == "400 unsupported_test_type")
        var confirmedOnly = Self.settings
        confirmedOnly.testTypes = [.confirmed]
        #expect(try type("negative", settings: confirmedOnly) == "400 unsupported_test_type")
    }

    @Test func codesAreUniformOverTheirAlphabets() {
        let random = SystemRandomSource()
        let short = (0..<2000).map { _ in ENXCodes.shortCode(length: 8, using: random) }
        #expect(short.allSatisfy { $0.count == 8 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        #expect(Set(short).count == short.count)
        // Every digit in every place: 16,000 draws, about 1,600 each; a skewed generator would fall far outside this.
        var counts = [Character: Int]()
        for code in short { for digit in code { counts[digit, default: 0] += 1 } }
        #expect(counts.count == 10 && counts.values.allSatisfy { (1400...1800).contains($0) })
        let long = (0..<500).map { _ in ENXCodes.longCode(length: 16, using: random) }
        #expect(long.allSatisfy { code in code.count == 16 && code.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) } })
        #expect(Set(long.joined()).count == 36)
        let settings = ENXCodeSettings()
        #expect(ENXCodes.isWellFormed(short[0], settings: settings) && ENXCodes.isWellFormed(long[0], settings: settings))
        for wrong in ["1234567", "123456789", "1234567a", long[0].uppercased(), " " + short[0], String(long[0].dropLast()) + "-"] {
            #expect(!ENXCodes.isWellFormed(wrong, settings: settings), "\(wrong)")
        }
    }

    @Test func theDefaultSettingsAreTheReferencesAndLimitsHold() {
        let settings = ENXCodeSettings()
        #expect(settings.problem == nil)
        #expect(settings.shortCodeLength == 8 && settings.shortCodeLifetime == 900 && settings.longCodeLength == 16 && settings.longCodeLifetime == 86400)
        #expect(settings.testTypes == [.confirmed, .likely, .negative] && settings.requireDate)
        var wrong = settings
        wrong.shortCodeLength = 5
        #expect(wrong.problem != nil)
        wrong = settings
        wrong.longCodeLifetime = 86401
        #expect(wrong.problem != nil)
        wrong = settings
        wrong.longCodeLifetime = 600
        #expect(wrong.problem != nil)
        wrong = settings
        wrong.testTypes = []
        #expect(wrong.problem != nil)
    }

    @Test func tokenSubjectsKeepEmptyParts() throws {
        let day = try #require(UTCDay("2020-11-20"))
        let test = try #require(UTCDay("2020-11-21"))
        #expect(ENXTokenSubject(testType: .confirmed, symptomDate: day, testDate: nil).text == "confirmed.2020-11-20.")
        #expect(ENXTokenSubject(testType: .likely, symptomDate: nil, testDate: test).text == "likely..2020-11-21")
        #expect(ENXTokenSubject(testType: .negative, symptomDate: nil, testDate: nil).text == "negative..")
        for text in ["confirmed.2020-11-20.2020-11-21", "likely..2020-11-21", "negative..", "confirmed.2020-11-20"] {
            #expect(ENXTokenSubject(text).map { $0.text.hasPrefix(text) } == true, "\(text)")
        }
        for text in ["confirmed", "positive..", "confirmed.2020-13-01.", "confirmed...", "likely.x."] {
            #expect(ENXTokenSubject(text) == nil, "\(text)")
        }
    }
}
