/// What ListObjectsV2 answered: the keys under a prefix and, with a delimiter, the common prefixes ("folders").
public struct S3Listing: Sendable, Equatable {
    public var keys: [String] = []
    public var commonPrefixes: [String] = []
    /// Set when the answer was truncated: the token that asks for the next page.
    public var nextContinuationToken: String?

    public init() {}

    /// Parses one page. The answer is a flat, fixed XML document, read by element name rather than with an XML
    /// parser: FoundationXML would pull libxml2 into every statically linked service for a dozen tags.
    init(xml: String) throws {
        guard xml.contains("<ListBucketResult") else {
            throw S3Error(operation: "ListObjectsV2", bucket: "", key: nil, status: 200, code: "MalformedAnswer", message: String(xml.prefix(200)))
        }
        for contents in Self.elements("Contents", in: Substring(xml)) {
            keys += Self.values(of: "Key", in: contents)
        }
        for group in Self.elements("CommonPrefixes", in: Substring(xml)) {
            commonPrefixes += Self.values(of: "Prefix", in: group)
        }
        if Self.values(of: "IsTruncated", in: xml).first == "true" {
            nextContinuationToken = Self.values(of: "NextContinuationToken", in: xml).first
        }
    }

    /// The unescaped text of every `<tag>…</tag>` in `xml`.
    static func values(of tag: String, in xml: some StringProtocol) -> [String] {
        elements(tag, in: Substring(xml)).map(unescape)
    }

    /// The raw content of every `<tag>…</tag>` in `xml` (not nested in itself, as no S3 element is).
    static func elements(_ tag: String, in xml: Substring) -> [Substring] {
        var elements: [Substring] = []
        var rest = xml
        while let open = rest.range(of: "<\(tag)>"), let close = rest.range(of: "</\(tag)>", range: open.upperBound..<rest.endIndex) {
            elements.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return elements
    }

    /// XML's five predefined entities and numeric character references.
    static func unescape(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            // A lone `&` (not well-formed XML) is kept as it is.
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { return out + rest[amp...] }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) { out.unicodeScalars.append(scalar) } else { out += "&\(entity);" }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }
}
