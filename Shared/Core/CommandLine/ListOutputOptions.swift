import ArgumentParser
import Foundation

/// `--json` of the list commands (`labs list`, `users list`, `audit`): one JSON document on stdout instead of the
/// tab-separated table, with the same rows. The keys are sorted and never renamed (docs/operations.md lists them),
/// so that scripts can rely on them; absent values are `null`, not missing.
public struct ListOutputOptions: ParsableArguments, Sendable {
    @Flag(help: "Print one JSON document with the same rows instead of the table (keys in docs/operations.md).")
    public var json = false

    public init() {}

    /// The table, or `document` as JSON when `--json` was given.
    public func render<Document: Encodable>(_ document: Document, table: () -> String) throws -> String {
        try Self.render(json: json, document, table: table)
    }

    public static func render<Document: Encodable>(json: Bool, _ document: Document, table: () -> String) throws -> String {
        guard json else { return table() }
        return try Self.json(document)
    }

    public static func json<Document: Encodable>(_ document: Document) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }
}
