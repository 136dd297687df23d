/// One survey answer as it is stored: nothing that names the device that sent it, and every date to the day
/// (`YYYY-MM-DD`, UTC), the day it arrived included (docs/privacy.md).
public struct LemonSurvey: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case positive = "Positive"
        case negative = "Negative"
        case unsure = "Unsure"
        case recovered = "Recovered"
    }

    public var submittedDay: String
    public var status: Status?
    public var positiveTestDay: String?
    public var negativeTestDay: String?
    public var symptomsFromDay: String?
    /// Upper-case alpha-2.
    public var country: String?
    /// Lower-case alpha-2.
    public var language: String?
    public var age: Int?
    public var isSymptomatic: Bool?
    public var symptoms: [String]

    public init(
        submittedDay: String, status: Status?, positiveTestDay: String?, negativeTestDay: String?, symptomsFromDay: String?,
        country: String?, language: String?, age: Int?, isSymptomatic: Bool?, symptoms: [String]
    ) {
        self.submittedDay = submittedDay
        self.status = status
        self.positiveTestDay = positiveTestDay
        self.negativeTestDay = negativeTestDay
        self.symptomsFromDay = symptomsFromDay
        self.country = country
        self.language = language
        self.age = age
        self.isSymptomatic = isSymptomatic
        self.symptoms = symptoms
    }
}
