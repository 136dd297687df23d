import Foundation

/// The rules of `POST /api/v1/submission/covid` (seed 000), every one a 400.
public struct LemonSurveyValidator: Sendable {
    /// Before this day no test date can be real: the earliest symptom onset of a recorded COVID-19 case (Wuhan,
    /// 1 December 2019, WHO). The seed names the rule but not the date.
    public static let firstRecordedCase = "2019-12-01"
    public static let maxSymptoms = 20
    public static let maxSymptomLength = 50
    public static let ages = 0...200

    /// The optional fields each status carries, from the seed's examples; Country, Language and Age go with any.
    public enum Field: String, Sendable {
        case positiveTestDate = "PositiveTestDate"
        case negativeTestDate = "NegativeTestDate"
        case symptomsFrom = "SymptomsFrom"
        case isSymptomatic = "IsSymptomatic"
        case symptoms = "Symptoms"
    }

    public static func fields(of status: LemonSurvey.Status?) -> Set<Field> {
        switch status {
        case .positive: [.positiveTestDate, .isSymptomatic, .symptoms, .symptomsFrom]
        case .negative: [.negativeTestDate, .symptoms, .symptomsFrom]
        case .unsure: [.isSymptomatic, .symptoms, .symptomsFrom]
        case .recovered: [.positiveTestDate, .negativeTestDate, .isSymptomatic]
        case nil: []
        }
    }

    public let catalog: LemonCatalog

    public init(catalog: LemonCatalog) {
        self.catalog = catalog
    }

    public func validate(_ request: LemonSurveyRequest, now: Date) throws(LemonRejection) -> LemonSurvey {
        var status: LemonSurvey.Status?
        if let sent = request.status {
            guard let known = LemonSurvey.Status.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(sent) == .orderedSame }) else {
                throw .invalid("The status must be Positive, Negative, Unsure or Recovered.")
            }
            status = known
        }
        let sent: [(Field, Bool)] = [
            (.positiveTestDate, request.positiveTestDate != nil), (.negativeTestDate, request.negativeTestDate != nil),
            (.symptomsFrom, request.symptomsFrom != nil), (.isSymptomatic, request.isSymptomatic != nil), (.symptoms, request.symptoms != nil),
        ]
        let allowed = Self.fields(of: status)
        if let field = sent.first(where: { $0.1 && !allowed.contains($0.0) })?.0 {
            throw .invalid("The field \(field.rawValue) does not go with the status \(status?.rawValue ?? "(none)").")
        }
        guard status != nil || request.country != nil || request.language != nil || request.age != nil else {
            throw .invalid("The survey is empty.")
        }
        var country: String?
        if let sentCountry = request.country {
            guard let known = catalog.country(sentCountry) else { throw .invalid("The country must be the alpha-2 code of a supported country.") }
            country = known.alpha2.uppercased()
        }
        var language: String?
        if let sentLanguage = request.language {
            guard let known = catalog.language(sentLanguage) else { throw .invalid("The language must be the alpha-2 code of a supported language.") }
            language = known.alpha2.lowercased()
        }
        if let age = request.age, !Self.ages.contains(age) {
            throw .invalid("The age must be \(Self.ages.lowerBound) to \(Self.ages.upperBound).")
        }
        let today = Self.day(of: now)
        let positive = try Self.pastDay(request.positiveTestDate, field: .positiveTestDate, today: today)
        let negative = try Self.pastDay(request.negativeTestDate, field: .negativeTestDate, today: today)
        let from = try Self.pastDay(request.symptomsFrom, field: .symptomsFrom, today: today)
        let symptoms = request.symptoms ?? []
        guard symptoms.count <= Self.maxSymptoms else { throw .invalid("At most \(Self.maxSymptoms) symptoms.") }
        guard Set(symptoms).count == symptoms.count else { throw .invalid("A symptom is listed twice.") }
        for symptom in symptoms {
            guard symptom.count <= Self.maxSymptomLength, catalog.symptomKeys.contains(symptom) else {
                throw .invalid("Every symptom must be a key of GET /api/v1/symptoms.")
            }
        }
        return LemonSurvey(
            submittedDay: today, status: status, positiveTestDay: positive, negativeTestDay: negative, symptomsFromDay: from,
            country: country, language: language, age: request.age, isSymptomatic: request.isSymptomatic, symptoms: symptoms
        )
    }

    /// The UTC day of a date the apps send, checked to lie between the first recorded case and today.
    static func pastDay(_ text: String?, field: Field, today: String) throws(LemonRejection) -> String? {
        guard let text else { return nil }
        guard let day = Self.parseDay(text) else { throw .invalid("The field \(field.rawValue) is not a date.") }
        // `YYYY-MM-DD` strings order as the days do.
        guard day <= today else { throw .invalid("The field \(field.rawValue) lies in the future.") }
        guard day >= firstRecordedCase else { throw .invalid("The field \(field.rawValue) lies before the first recorded COVID-19 case.") }
        return day
    }

    /// `2020-03-29 13:00:09.1359267` (the seed's form, .NET's invariant culture without zone: read as UTC), or ISO
    /// 8601 (`2020-03-29T13:00:09Z`, with offset); only the date is kept, so the time is only checked for form.
    static func parseDay(_ text: String) -> String? {
        let pattern = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/
        guard let match = text.wholeMatch(of: pattern) else { return nil }
        var components = DateComponents()
        components.year = Int(match.1)
        components.month = Int(match.2)
        components.day = Int(match.3)
        components.hour = match.4.flatMap { Int($0) } ?? 0
        components.minute = match.5.flatMap { Int($0) } ?? 0
        components.second = match.6.flatMap { Int($0) } ?? 0
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard components.isValidDate(in: calendar), let hour = components.hour, hour < 24, let minute = components.minute, minute < 60,
              let second = components.second, second < 60, var date = calendar.date(from: components)
        else { return nil }
        if let zone = match.7, zone != "Z" {
            let digits = zone.dropFirst().filter(\.isNumber)
            let offset = (Int(digits.prefix(2)) ?? 0) * 3600 + (Int(digits.suffix(2)) ?? 0) * 60
            date.addTimeInterval(TimeInterval(zone.hasPrefix("-") ? offset : -offset))
        }
        return day(of: date)
    }

    /// `YYYY-MM-DD` of a moment, in UTC.
    public static func day(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
