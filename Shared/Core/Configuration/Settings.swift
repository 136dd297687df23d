import Configuration
import Foundation

/// Typed, validated access to settings from command-line flags and environment variables.
///
/// A setting is named by its environment variable (`DATABASE_URL`); the same setting can be given as a
/// flag (`--database-url`), which wins over the environment. Every accessor validates its value and throws a
/// `ConfigurationError` that names the variable, so a bad deployment stops at start-up with one clear line.
public struct Settings: Sendable {
    private let reader: ConfigReader
    private let readLog: SettingsReadLog?

    /// - Parameters:
    ///   - arguments: the program name, then `--flag value` words (the first word is skipped, as by swift-configuration).
    ///   - readLog: collects every variable asked for, so that a command can refuse flags nothing read.
    public init(
        arguments: [String] = CommandLine.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        readLog: SettingsReadLog? = nil
    ) {
        self.readLog = readLog
        self.reader = ConfigReader(providers: [
            CommandLineArgumentsProvider(arguments: arguments),
            EnvironmentVariablesProvider(environmentVariables: environment),
        ])
    }

    /// The dotted key swift-configuration maps to both `NAME_OF_VAR` and `--name-of-var`.
    private func key(_ variable: String) -> String {
        variable.lowercased().replacingOccurrences(of: "_", with: ".")
    }

    /// The raw text of a setting, or nil when it is absent or empty. A `NAME_FILE` that is set but cannot be used
    /// throws: a setting never falls back to its default because its file is missing.
    public func raw(_ variable: String) throws(ConfigurationError) -> String? {
        try lookUp(variable)
    }

    /// The text of `NAME`, or else of the file `NAME_FILE` names (ends trimmed), so that secrets can come from files
    /// a secret store mounts rather than from the environment. `NAME` wins when both are set. The `NAME_FILE` form is
    /// for secrets, so its file must pass `SettingFile.check` as a secret: there, readable, not empty, private.
    private func lookUp(_ variable: String) throws(ConfigurationError) -> String? {
        // Both names are settings this configuration reads: a command accepts `--name` and `--name-file` alike.
        readLog?.record(variable)
        readLog?.record(variable + "_FILE")
        if let value = reader.string(forKey: ConfigKey(key(variable))), !value.isEmpty { return value }
        let fileVariable = variable + "_FILE"
        guard let path = reader.string(forKey: ConfigKey(key(fileVariable))), !path.isEmpty else { return nil }
        try SettingFile.check(path, variable: fileVariable, holds: .secret)
        guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(variable: fileVariable, reason: "names \(path), which is not UTF-8 text")
        }
        let value = contents.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty else {
            throw ConfigurationError(variable: fileVariable, reason: "names \(path), which holds only white space")
        }
        return value
    }

    public func string(_ variable: String, default defaultValue: String) throws(ConfigurationError) -> String {
        try raw(variable) ?? defaultValue
    }

    public func optionalString(_ variable: String) throws(ConfigurationError) -> String? {
        try raw(variable)
    }

    /// A key given in hex (`openssl rand -hex 32`), of a length in `bytes`; nil when the setting (and its `_FILE`
    /// form) is absent.
    public func hexKey(_ variable: String, bytes: ClosedRange<Int>) throws(ConfigurationError) -> [UInt8]? {
        guard let text = try optionalString(variable) else { return nil }
        guard let key = [UInt8](hex: text), bytes.contains(key.count) else {
            let length = bytes.lowerBound == bytes.upperBound ? "\(bytes.lowerBound)" : "at least \(bytes.lowerBound)"
            throw ConfigurationError(variable: variable, reason: "must be \(length) bytes in hex")
        }
        return key
    }

    /// The text of a setting whose empty value means something of its own (`OFFICER_DEFAULT_AUTHORITY=`: none, where
    /// leaving it out means the default): nil when it is absent, "" when it is set to nothing.
    public func stringOrEmpty(_ variable: String) throws(ConfigurationError) -> String? {
        if let value = try lookUp(variable) { return value }
        return reader.string(forKey: ConfigKey(key(variable))) == "" ? "" : nil
    }

    /// The path a setting names (`SIGNING_KEY_FILE`), or nil when it is not set; a file that is missing, unreadable,
    /// empty or, holding a secret, open to other users stops start-up (`SettingFile.check`).
    public func file(_ variable: String, holds contents: SettingFile.Contents) throws(ConfigurationError) -> String? {
        guard let path = try lookUp(variable) else { return nil }
        try SettingFile.check(path, variable: variable, holds: contents)
        return path
    }

    public func requiredString(_ variable: String) throws(ConfigurationError) -> String {
        guard let value = try lookUp(variable) else {
            throw ConfigurationError(variable: variable, reason: "is required (or \(variable)_FILE, the path of a file holding it)")
        }
        return value
    }

    public func int(_ variable: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let text = try lookUp(variable) else { return defaultValue }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError(variable: variable, reason: "must be a whole number, got '\(text)'")
        }
        guard range.contains(value) else {
            throw ConfigurationError(variable: variable, reason: "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }

    public func port(_ variable: String, default defaultValue: Int) throws(ConfigurationError) -> Int {
        try int(variable, default: defaultValue, in: 0...65535)
    }

    public func bool(_ variable: String, default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let text = try lookUp(variable)?.lowercased() else { return defaultValue }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(variable: variable, reason: "must be true or false, got '\(text)'")
        }
    }

    /// A duration such as `90s`, `15m`, `1h`, `14d` or a bare number of seconds.
    public func duration(_ variable: String, default defaultValue: Duration, minimum: Duration = .zero) throws(ConfigurationError) -> Duration {
        guard let text = try lookUp(variable) else { return defaultValue }
        guard let value = Self.parseDuration(text) else {
            throw ConfigurationError(variable: variable, reason: "must be a duration such as 30s, 15m, 1h or 14d, got '\(text)'")
        }
        guard value >= minimum else {
            throw ConfigurationError(variable: variable, reason: "must be at least \(minimum), got '\(text)'")
        }
        return value
    }

    /// A comma-separated list; entries are trimmed and empty ones dropped.
    public func list(_ variable: String, default defaultValue: [String]) throws(ConfigurationError) -> [String] {
        guard let text = try raw(variable) else { return defaultValue }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// One of a fixed set of words.
    public func choice(_ variable: String, default defaultValue: String, among choices: [String]) throws(ConfigurationError) -> String {
        guard let text = try lookUp(variable)?.lowercased() else { return defaultValue }
        guard choices.contains(text) else {
            throw ConfigurationError(variable: variable, reason: "must be one of \(choices.joined(separator: ", ")), got '\(text)'")
        }
        return text
    }

    public static func parseDuration(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Int64)] = [("ms", 0), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, seconds) in units where trimmed.hasSuffix(suffix) {
            guard let number = Int64(trimmed.dropLast(suffix.count)), number >= 0 else { return nil }
            return suffix == "ms" ? .milliseconds(number) : .seconds(number * seconds)
        }
        guard let number = Int64(trimmed), number >= 0 else { return nil }
        return .seconds(number)
    }
}

extension Settings {
    /// An absolute http(s) URL.
    public func url(_ variable: String, default defaultValue: String) throws(ConfigurationError) -> URL {
        let text = try lookUp(variable) ?? defaultValue
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw ConfigurationError(variable: variable, reason: "must be an http:// or https:// URL, got '\(text)'")
        }
        return url
    }
}

extension Settings {
    /// A comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8, 2001:db8::1`); empty by default.
    public func networks(_ variable: String) throws(ConfigurationError) -> [IPNetwork] {
        var networks: [IPNetwork] = []
        for entry in try list(variable, default: []) {
            guard let network = IPNetwork(entry) else {
                throw ConfigurationError(variable: variable, reason: "must list IP addresses or CIDR ranges, got '\(entry)'")
            }
            networks.append(network)
        }
        return networks
    }
}
