import Crypto
import Foundation

/// The services allowed to call an internal listener, each by a secret token of its own.
///
/// Configured as `INTERNAL_API_TOKENS=caller=token,caller=token` (or the same text in the file named by
/// `INTERNAL_API_TOKENS_FILE`); each caller sends its token in `X-Service-Token`. Only SHA-256 digests of the tokens
/// are kept in memory, and a presented token is compared with every digest in time that does not depend on where
/// (or whether) it matches. One token per caller lets an operator replace the token of one caller without touching
/// the others, and tells the logs which caller a refused request claimed to be.
public struct ServiceTokens: Sendable {
    public static let header = "X-Service-Token"
    /// Tokens are random strings an operator generates (`openssl rand -hex 32`); shorter ones are refused.
    public static let minimumLength = 32

    private let digests: [(caller: String, digest: [UInt8])]

    public init(_ tokens: [String: String]) {
        digests = tokens.sorted { $0.key < $1.key }.map { ($0.key, Array(SHA256.hash(data: Array($0.value.utf8)))) }
    }

    /// The callers named in the configuration.
    public var callers: [String] { digests.map(\.caller) }

    /// The caller whose token `presented` is; nil for any other text.
    public func caller(presenting presented: String) -> String? {
        let digest = Array(SHA256.hash(data: Array(presented.utf8)))
        var match: String?
        for entry in digests where SecretHash.constantTimeEquals(entry.digest, digest) {
            match = entry.caller
        }
        return match
    }

    /// `INTERNAL_API_TOKENS`, validated; nil when it is not set. Serving needs it (`required(_:variable:)`); the
    /// administration commands and `migrate` do not.
    public static func optional(_ settings: Settings, variable: String = "INTERNAL_API_TOKENS") throws(ConfigurationError) -> ServiceTokens? {
        guard try settings.raw(variable) != nil else { return nil }
        return try ServiceTokens(settings, variable: variable)
    }

    /// `INTERNAL_API_TOKENS`, required: an internal listener without callers would refuse everyone.
    public init(_ settings: Settings, variable: String = "INTERNAL_API_TOKENS") throws(ConfigurationError) {
        let entries = try settings.list(variable, default: [])
        guard !entries.isEmpty else {
            throw Self.missing(variable)
        }
        var tokens: [String: String] = [:]
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ConfigurationError(variable: variable, reason: "must be caller=token pairs separated by commas")
            }
            guard Self.isWellFormed(parts[1]) else {
                throw ConfigurationError(variable: variable, reason: "has a token for \(parts[0]) that is not at least \(Self.minimumLength) letters, digits, '-' or '_'")
            }
            guard tokens.updateValue(parts[1], forKey: parts[0]) == nil else {
                throw ConfigurationError(variable: variable, reason: "names \(parts[0]) twice")
            }
        }
        self.init(tokens)
    }

    /// A caller's own token setting (`VERIFICATION_API_TOKEN`, `TESTRESULT_API_TOKEN`), well formed; nil when it is
    /// not set (serving needs it, `required(_:variable:)`).
    public static func callerToken(_ settings: Settings, variable: String) throws(ConfigurationError) -> String? {
        guard let token = try settings.raw(variable) else { return nil }
        guard isWellFormed(token) else {
            throw ConfigurationError(variable: variable, reason: "must be at least \(minimumLength) letters, digits, '-' or '_'")
        }
        return token
    }

    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count >= minimumLength && token.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    /// The error of a service started to serve without its tokens.
    public static func missing(_ variable: String) -> ConfigurationError {
        ConfigurationError(variable: variable, reason: "is required to serve: the service tokens of the internal listeners (docs/operations.md)")
    }

    /// `value`, or the error that names `variable` as missing.
    public static func required<T>(_ value: T?, variable: String) throws(ConfigurationError) -> T {
        guard let value else { throw missing(variable) }
        return value
    }
}
