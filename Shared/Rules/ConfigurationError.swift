/// A configuration value that is missing its mark: names the variable and says what is wrong.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public let variable: String
    public let reason: String

    public init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    public var description: String { "invalid configuration: \(variable) \(reason)" }
}
