import Foundation

/// The fields of one JSON object of an ENX request, read as the reference's Go decoder reads them: a name matches
/// its field without regard to case, a name of no field is refused, a `null` is as if the field were absent, and a
/// value of the wrong type is refused. Every refusal is `Malformed`; each endpoint answers it with its own error code.
struct ENXFields {
    struct Malformed: Error {}

    private var values: [String: ENXJSONValue] = [:]

    /// The object's fields, when each of its names is one of `known` (compared lower-cased).
    init(_ value: ENXJSONValue, known: Set<String>) throws(Malformed) {
        guard case .object(let members) = value else { throw Malformed() }
        for (name, member) in members {
            let key = name.lowercased()
            guard known.contains(key) else { throw Malformed() }
            if member != .null { values[key] = member }
        }
    }

    func string(_ name: String) throws(Malformed) -> String? {
        switch values[name] {
        case nil: return nil
        case .string(let text): return text
        default: throw Malformed()
        }
    }

    func bool(_ name: String) throws(Malformed) -> Bool? {
        switch values[name] {
        case nil: return nil
        case .bool(let value): return value
        default: throw Malformed()
        }
    }

    func number(_ name: String) throws(Malformed) -> Double? {
        switch values[name] {
        case nil: return nil
        case .number(let value): return value
        default: throw Malformed()
        }
    }

    func strings(_ name: String) throws(Malformed) -> [String]? {
        switch values[name] {
        case nil: return nil
        case .array(let items):
            return try items.map { item throws(Malformed) in
                guard case .string(let text) = item else { throw Malformed() }
                return text
            }
        default: throw Malformed()
        }
    }

    func objects(_ name: String) throws(Malformed) -> [ENXJSONValue]? {
        switch values[name] {
        case nil: return nil
        case .array(let items): return items
        default: throw Malformed()
        }
    }
}
