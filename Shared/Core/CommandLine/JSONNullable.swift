/// An optional value that a list command's JSON writes as `null` when absent, where Swift's synthesized `Encodable`
/// would leave the key out: every row of `--json` output has every key (`ListOutputOptions`).
public struct JSONNullable<Value: Encodable & Sendable>: Encodable, Sendable {
    public let value: Value?

    public init(_ value: Value?) {
        self.value = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
