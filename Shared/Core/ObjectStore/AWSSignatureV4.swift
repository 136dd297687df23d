import Crypto
import Foundation

/// AWS Signature Version 4 in its header form (`Authorization: AWS4-HMAC-SHA256 …`), as S3 and every
/// S3-compatible store (MinIO, Ceph, moto) accept it. Written here rather than taken from an SDK: it is a page of
/// hashing, and no AWS SDK is among the dependencies.
///
/// Signing is three steps, each a function of its own so that AWS's published vectors test each one: the canonical
/// request (method, path, query, headers, payload hash) → the string to sign (time, scope, hash of the former) →
/// the signature (HMAC with a key derived from the secret, the day, region and service).
///
/// Paths are URI-encoded once, as S3 wants (other AWS services encode twice; this signer serves object stores).
public struct AWSSignatureV4: Sendable {
    public let accessKeyID: String
    private let secretAccessKey: String
    public let region: String
    public let service: String

    public init(accessKeyID: String, secretAccessKey: String, region: String, service: String = "s3") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.service = service
    }

    /// The hex SHA-256 of an empty payload (GET, HEAD, DELETE).
    public static let emptyPayloadHash = SecretHash.sha256Hex([UInt8]())

    /// The headers to send for a request: `headers` plus `host`, `x-amz-date` and `authorization`.
    ///
    /// - Parameters:
    ///   - path: the path as it goes on the wire, already encoded with `encodePath` (the signer signs it verbatim).
    ///   - query: decoded names and values; the signer encodes them as the canonical query string.
    ///   - host: the `Host` header, with the port when it is not the scheme's default.
    ///   - payloadHash: the hex SHA-256 of the body.
    public func sign(
        method: String, host: String, path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
        payloadHash: String, date: Date
    ) -> [(String, String)] {
        let all = headers + [("host", host), ("x-amz-date", Self.timestamp(date))]
        let request = canonicalRequest(method: method, path: path, query: query, headers: all, payloadHash: payloadHash)
        let proof = signature(stringToSign: stringToSign(canonicalRequest: request.text, date: date), date: date)
        let authorization = "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope(date)), SignedHeaders=\(request.signedHeaders), Signature=\(proof)"
        return all + [("authorization", authorization)]
    }

    /// The canonical request and the list of signed header names (every header given is signed).
    public func canonicalRequest(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String
    ) -> (text: String, signedHeaders: String) {
        // Sorted by encoded name, then value.
        let encoded: [(name: String, value: String)] = query.map { (Self.encode($0.0), Self.encode($0.1)) }
        let sorted = encoded.sorted { ($0.name, $0.value) < ($1.name, $1.value) }
        let canonicalQuery = sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
        // Names in lower case, sorted; values trimmed with inner runs of spaces collapsed; repeated names joined by commas.
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let squeezed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            values[name.lowercased(), default: []].append(squeezed.trimmingCharacters(in: .whitespaces))
        }
        let names = values.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let text = [method, path.isEmpty ? "/" : path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].joined(separator: "\n")
        return (text, signedHeaders)
    }

    public func stringToSign(canonicalRequest: String, date: Date) -> String {
        ["AWS4-HMAC-SHA256", Self.timestamp(date), scope(date), SecretHash.sha256Hex(canonicalRequest)].joined(separator: "\n")
    }

    public func signature(stringToSign: String, date: Date) -> String {
        // The key is derived from the secret through the day, region and service, so that a leaked derived key is
        // worth one day in one region for one service.
        var key = SymmetricKey(data: Array("AWS4\(secretAccessKey)".utf8))
        for part in [Self.day(date), region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key).hexString
    }

    func scope(_ date: Date) -> String { "\(Self.day(date))/\(region)/\(service)/aws4_request" }

    /// `20150830T123600Z`
    public static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    static func day(_ date: Date) -> String { String(timestamp(date).prefix(8)) }

    /// RFC 3986 percent-encoding of everything but the unreserved characters, as SigV4 asks for names and values.
    public static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// A path with each segment encoded and the slashes kept: what goes on the wire and into the canonical request.
    public static func encodePath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }
}

extension AWSSignatureV4: CustomStringConvertible {
    /// Never the secret: a signer may end up in a log line through the value that holds it.
    public var description: String { "AWSSignatureV4(accessKeyID: \(accessKeyID), region: \(region), service: \(service))" }
}
