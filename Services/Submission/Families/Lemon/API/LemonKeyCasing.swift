import Foundation
import OpenAPIRuntime

/// The seed spells the same key several ways (`AppId`, `appId`, `appld`; `Signature`, `signature`), so request keys
/// are matched without regard to case and renamed to the spelling of `openapi/lemon.yaml` before the generated
/// decoder reads them. The names are per operation: the devices' `language` and the surveys' `Language` differ.
struct LemonKeyCasing: Sendable {
    /// Lower-cased key → the document's spelling.
    let names: [String: String]

    init(_ spellings: [String]) {
        names = Dictionary(uniqueKeysWithValues: spellings.map { ($0.lowercased(), $0) })
    }

    static let byOperation: [String: LemonKeyCasing] = [
        "postDevice": LemonKeyCasing([
            "appId", "publicKey", "operatingSystem", "pushToken", "language", "seed", "preMasterSecret", "signature",
            "plainTextData", "signedData",
        ]),
        "setPushToken": LemonKeyCasing(["pushToken"]),
        "submitSurvey": LemonKeyCasing([
            "Status", "PositiveTestDate", "NegativeTestDate", "SymptomsFrom", "Country", "Language", "Age", "IsSymptomatic",
            "Symptoms",
        ]),
    ]

    /// Two keys that differ only in case name the same field twice.
    struct Ambiguous: Error {}

    /// The body with its keys renamed; a body that is not a JSON object is left for the decoder to refuse.
    func canonicalize(_ bytes: [UInt8]) throws -> [UInt8] {
        guard let parsed = try? JSONDecoder().decode(OpenAPIValueContainer.self, from: Data(bytes)) else { return bytes }
        let renamed = try OpenAPIValueContainer(unvalidatedValue: try rename(parsed.value))
        return Array(try JSONEncoder().encode(renamed))
    }

    private func rename(_ value: (any Sendable)?) throws -> (any Sendable)? {
        if let object = value as? [String: (any Sendable)?] {
            var result: [String: (any Sendable)?] = [:]
            for (key, inner) in object {
                let name = names[key.lowercased()] ?? key
                guard result[name] == nil else { throw Ambiguous() }
                result[name] = try rename(inner)
            }
            return result
        }
        if let array = value as? [(any Sendable)?] { return try array.map { try rename($0) } }
        return value
    }
}
