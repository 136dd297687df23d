/// Why a LEMON request is refused, and how the seed answers it: 400 for a request that breaks a rule of form, 401
/// for one whose credentials (signatures, keys, JWT, lockout) fail, 429 when the devices' rate limit is spent.
/// The message names the rule, never the value sent.
public struct LemonRejection: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case invalid
        case unauthorized
        case rateLimited
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func invalid(_ message: String) -> LemonRejection { LemonRejection(.invalid, message) }
    public static func unauthorized(_ message: String) -> LemonRejection { LemonRejection(.unauthorized, message) }
}
