import Foundation

/// The seed's answer around everything: `{"data": …, "meta": {"success", "code", "message"}}`, in PascalCase on the
/// statistics endpoints. Here the one for errors (`data` null); handlers build their own answers from the document.
struct LemonEnvelope: Encodable {
    let code: Int
    let message: String?
    let pascalCase: Bool

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private func key(_ name: String) -> Key {
        Key(pascalCase ? name.prefix(1).uppercased() + name.dropFirst() : name)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeNil(forKey: key("data"))
        var meta = container.nestedContainer(keyedBy: Key.self, forKey: key("meta"))
        try meta.encode(code < 400, forKey: key("success"))
        try meta.encode(code, forKey: key("code"))
        if let message { try meta.encode(message, forKey: key("message")) } else { try meta.encodeNil(forKey: key("message")) }
    }

    var bytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array((try? encoder.encode(self)) ?? Data())
    }
}
