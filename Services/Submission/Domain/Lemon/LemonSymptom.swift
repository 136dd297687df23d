/// One symptom as the app lists it: the key it sends back with a survey and its name in one language.
public struct LemonSymptom: Codable, Sendable, Equatable {
    public let key: String
    public let value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}
