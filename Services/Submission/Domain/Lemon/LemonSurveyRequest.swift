/// `POST /api/v1/submission/covid` as sent; `nil` is a field left out.
public struct LemonSurveyRequest: Sendable {
    public var status: String?
    public var positiveTestDate: String?
    public var negativeTestDate: String?
    public var symptomsFrom: String?
    public var country: String?
    public var language: String?
    public var age: Int?
    public var isSymptomatic: Bool?
    public var symptoms: [String]?

    public init(
        status: String? = nil, positiveTestDate: String? = nil, negativeTestDate: String? = nil, symptomsFrom: String? = nil,
        country: String? = nil, language: String? = nil, age: Int? = nil, isSymptomatic: Bool? = nil, symptoms: [String]? = nil
    ) {
        self.status = status
        self.positiveTestDate = positiveTestDate
        self.negativeTestDate = negativeTestDate
        self.symptomsFrom = symptomsFrom
        self.country = country
        self.language = language
        self.age = age
        self.isSymptomatic = isSymptomatic
        self.symptoms = symptoms
    }
}
