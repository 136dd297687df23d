import ExposureRules

/// A health authority an EVENT teleTAN can be issued for: its number (as the federal registry writes it,
/// e.g. `1.08.2.12.`) and an optional name shown next to it.
public struct HealthAuthority: Sendable, Equatable {
    public let number: String
    public let name: String?

    public init(number: String, name: String? = nil) {
        self.number = number
        self.name = name
    }

    /// What the officer sees in the list.
    public var label: String { name.map { "\(number) – \($0)" } ?? number }

    /// Parses `HEALTH_AUTHORITIES` entries: `number` or `number=name`.
    public static func parseList(_ entries: [String]) throws(ConfigurationError) -> [HealthAuthority] {
        var result: [HealthAuthority] = []
        for entry in entries {
            // Empty parts are kept, so that `=` and `=name` are refused for their missing number.
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let number = parts[0]
            guard !number.isEmpty, number.count <= 32, number.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) else {
                throw ConfigurationError(variable: "HEALTH_AUTHORITIES", reason: "has an invalid number '\(number)' (letters, digits, '.' and '-', at most 32)")
            }
            guard !result.contains(where: { $0.number == number }) else {
                throw ConfigurationError(variable: "HEALTH_AUTHORITIES", reason: "lists \(number) twice")
            }
            result.append(HealthAuthority(number: number, name: parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil))
        }
        return result
    }
}
