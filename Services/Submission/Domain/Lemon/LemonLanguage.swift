/// A language the LEMON API accepts, as `GET /api/v1/languages` answers it.
public struct LemonLanguage: Codable, Sendable, Equatable {
    public let id: Int
    public let name: String
    public let alpha2: String

    public init(id: Int, name: String, alpha2: String) {
        self.id = id
        self.name = name
        self.alpha2 = alpha2
    }
}
