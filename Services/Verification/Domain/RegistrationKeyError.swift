/// Why a registration's key was refused before any lookup: a rule of the contract, answered by the API as a 400 with
/// `code` and `message`.
public struct RegistrationKeyError: Error, Sendable, Equatable {
    public enum Code: String, Sendable {
        case invalidKey = "invalid_key"
        case invalidKeyType = "invalid_key_type"
    }

    public let code: Code
    public let message: String
}
