import Foundation
import Logging

/// One line per event, as logfmt (`ts=… level=info service=verification msg="…" key=value`) or JSON.
///
/// What goes into a line is what the code puts there: services log events, counts and durations, never
/// client addresses, GUIDs, tokens, TANs or teleTANs.
public struct StructuredLogHandler: LogHandler {
    public enum Format: String, Sendable {
        case logfmt
        case json
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let format: Format

    public init(label: String, format: Format) {
        self.label = label
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [(String, String)] = [
            ("ts", Self.timestamp()),
            ("level", event.level.rawValue),
            ("logger", label),
            ("msg", event.message.description),
        ]
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        for key in merged.keys.sorted() {
            fields.append((key, "\(merged[key]!)"))
        }
        let line: String
        switch format {
        case .logfmt:
            line = fields.map { "\($0.0)=\(Self.logfmtValue($0.1))" }.joined(separator: " ")
        case .json:
            var object: [String: String] = [:]
            for (key, value) in fields { object[key] = value }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            line = String(decoding: data, as: UTF8.self)
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A value as logfmt writes it: bare when it is a plain word, otherwise quoted with every control character
    /// escaped, so that no value (an error's text, a header a client sent) can end the line or forge a second one.
    static func logfmtValue(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.unicodeScalars.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" || isControl($0) }
        guard needsQuotes else { return value }
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where isControl(scalar): escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// C0 and C1 control characters, DEL, and the Unicode line and paragraph separators, which some log viewers
    /// break lines at.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    private static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
