import ExposureRules

/// The `sub` claim of an ENX verification token: `<testType>.<symptomDate>.<testDate>`, empty parts kept
/// (`confirmed.2020-11-20.`, `likely..2020-11-21`, `negative..`). The certificate endpoint reads it back and
/// compares it with what was stored for the token.
public struct ENXTokenSubject: Sendable, Equatable {
    public let testType: ENXReportType
    public let symptomDate: UTCDay?
    public let testDate: UTCDay?

    public init(testType: ENXReportType, symptomDate: UTCDay?, testDate: UTCDay?) {
        self.testType = testType
        self.symptomDate = symptomDate
        self.testDate = testDate
    }

    public var text: String {
        "\(testType.rawValue).\(symptomDate?.description ?? "").\(testDate?.description ?? "")"
    }

    /// Reads a subject of two or three parts (the reference's older tokens had no test date); nil for another form or a
    /// date that is no day.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count), let type = ENXReportType(rawValue: parts[0]) else { return nil }
        func day(_ index: Int) -> UTCDay?? {
            guard index < parts.count, !parts[index].isEmpty else { return .some(nil) }
            return UTCDay(parts[index]).map { .some($0) }
        }
        guard let symptom = day(1), let test = day(2) else { return nil }
        self.init(testType: type, symptomDate: symptom, testDate: test)
    }
}
