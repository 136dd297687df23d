import ExposureRules
import Foundation

/// An `/api/issue` request of a health authority's system, checked as the reference checks it, in its order
/// (docs/enx.md, 2.4): a date when the authority requires one, each date `YYYY-MM-DD` within `allowedDateAge` days
/// up to today (UTC; a day more when the caller's clock is behind UTC), no phone (no SMS provider is configured: the
/// reference answers 400 without a code), then, after the caller's `uuid` has been looked up, the test type.
public struct ENXIssueOrder: Sendable, Equatable {
    /// Lower-cased as the reference stores it; checked by `checkTestType`.
    public let testType: String
    public let symptomDate: UTCDay?
    public let testDate: UTCDay?
    /// The caller's own id of the code, trimmed and lower-cased; nil when it sent none (one is made).
    public let uuid: String?
    /// At most 255 characters, kept as sent: the caller's id of whoever asked.
    public let externalIssuerID: String?

    /// What an issue request says, as decoded.
    public struct Request: Sendable, Equatable {
        public var testType: String
        public var symptomDate: String?
        public var testDate: String?
        public var tzOffset: Double?
        public var phone: String?
        public var uuid: String?
        public var externalIssuerID: String?
        public var onlyGenerateSMS: Bool

        public init(
            testType: String, symptomDate: String? = nil, testDate: String? = nil, tzOffset: Double? = nil, phone: String? = nil,
            uuid: String? = nil, externalIssuerID: String? = nil, onlyGenerateSMS: Bool = false
        ) {
            self.testType = testType
            self.symptomDate = symptomDate
            self.testDate = testDate
            self.tzOffset = tzOffset
            self.phone = phone
            self.uuid = uuid
            self.externalIssuerID = externalIssuerID
            self.onlyGenerateSMS = onlyGenerateSMS
        }
    }

    /// The checks before the `uuid` is looked up.
    public init(_ request: Request, settings: ENXCodeSettings, now: Int64) throws(ENXRefusal) {
        let symptom = request.symptomDate ?? "", test = request.testDate ?? ""
        if settings.requireDate, symptom.isEmpty, test.isEmpty {
            throw ENXRefusal(400, ENXRefusal.missingDate, "missing either test or symptom date")
        }
        let behindUTC = (request.tzOffset ?? 0) < 0
        symptomDate = try Self.date(symptom, named: "symptom onset", settings: settings, now: now, behindUTC: behindUTC)
        testDate = try Self.date(test, named: "test", settings: settings, now: now, behindUTC: behindUTC)
        if let external = request.externalIssuerID, external.count > 255 {
            throw ENXRefusal(400, ENXRefusal.unparsableRequest, "externalIssuerID is at most 255 characters")
        }
        if request.onlyGenerateSMS {
            throw ENXRefusal(400, ENXRefusal.unparsableRequest, "realm is not permitted to use onlyGenerateSMS")
        }
        if let phone = request.phone, !phone.isEmpty {
            throw ENXRefusal(400, "", "phone provided, but no sms provider is configured")
        }
        testType = request.testType.lowercased()
        // As the reference: invisible characters dropped, blanks around trimmed. Its column is PostgreSQL's `uuid`, so
        // any other text failed there; here it is a 400 before anything is stored.
        let visible = String(String.UnicodeScalarView((request.uuid ?? "").unicodeScalars.filter {
            $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
        })).trimmingCharacters(in: .whitespaces).lowercased()
        if !visible.isEmpty, UUID(uuidString: visible) == nil {
            throw ENXRefusal(400, ENXRefusal.unparsableRequest, "uuid is not a UUID")
        }
        uuid = visible.isEmpty ? nil : visible
        externalIssuerID = request.externalIssuerID.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The checks after the `uuid`: a user report only where the authority lets its systems issue one (never, yet),
    /// then one of the four types, then one the authority issues.
    public func checkTestType(settings: ENXCodeSettings) throws(ENXRefusal) -> ENXReportType {
        guard let type = ENXReportType(rawValue: testType) else {
            throw ENXRefusal(400, ENXRefusal.invalidTestType, "invalid test type")
        }
        guard type != .userReport, settings.testTypes.contains(type) else {
            throw ENXRefusal(400, ENXRefusal.unsupportedTestType, "unsupported test type: \(testType)")
        }
        return type
    }

    /// A date of the request: none when empty; 400 `unparsable_request` when not `YYYY-MM-DD`; 400 `invalid_date`
    /// after today or before the oldest day allowed.
    static func date(_ text: String, named name: String, settings: ENXCodeSettings, now: Int64, behindUTC: Bool) throws(ENXRefusal) -> UTCDay? {
        guard !text.isEmpty else { return nil }
        guard let day = UTCDay(text) else {
            throw ENXRefusal(400, ENXRefusal.unparsableRequest, "failed to process \(name) date: \(text) is not YYYY-MM-DD")
        }
        let today = UTCDay(containing: now)
        let oldest = today.adding(days: -settings.allowedDateAge)
        let lowest = behindUTC ? oldest.adding(days: -1) : oldest
        guard day >= lowest, day <= today else {
            throw ENXRefusal(400, ENXRefusal.invalidDate, "\(name) date must be on/after \(oldest) and on/before \(today). Received \(day)")
        }
        return day
    }
}
