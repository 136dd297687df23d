import ExposureRules
import Foundation
import HTTPTypes
import Hummingbird
import VerificationDomain

/// The answers of the ENX endpoints, as Google's verification server writes them (docs/enx.md, 2.0): JSON; a success
/// padded with 1,024 to 2,047 random bytes in base64, so that sizes do not tell answers apart; an error as
/// `{"error", "errorCode", "error_code"}`, the last a deprecated copy of the second that is always present.
enum ENXAnswer {
    static let contentType = "application/json"

    /// `body` with a fresh `padding`.
    static func success<Body: Encodable>(_ body: Body, random: any RandomSource) -> Response {
        json(.ok, Padded(body: body, padding: padding(random)))
    }

    /// The answer to a chaff request: only padding, as long as a real answer of the device endpoints
    /// (`deviceSized`).
    static func chaff(random: any RandomSource) -> Response {
        deviceSized(EmptyBody(), random: random)
    }

    /// How long, in bytes, every 200 of `/api/verify` and `/api/certificate` is, chaff or real: drawn uniformly from
    /// this range and reached with the padding (and up to three blanks JSON allows), so that the length of an answer,
    /// which TLS does not hide, does not tell chaff from a real verification. The reference pads with 1,024 to 2,047
    /// random bytes whatever the answer holds, so its chaff was shorter than its real answers by their content; here
    /// the padding is still 1,024 to 2,047 bytes for any content up to `deviceContentLimit` (the upper end is chaff's:
    /// 2,740 bytes less its 14 of JSON is 2,046 bytes of base64).
    static let deviceAnswerSizes = 2400...2740
    /// The longest content (without padding) a device answer may have for its padding to stay in 1,024…2,047 bytes:
    /// a verification token with both dates is about 700 bytes.
    static let deviceContentLimit = 1000

    /// `body`, padded to a length drawn from `deviceAnswerSizes`.
    static func deviceSized<Body: Encodable>(_ body: Body, random: any RandomSource) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The bodies are structs of strings: encoding them cannot fail.
        let content = Array((try? encoder.encode(body)) ?? Data("{}".utf8))
        // `{…,"padding":"<base64>"}`: the content without its closing brace, a comma when it has fields, the key.
        var prefix = Array(content.dropLast())
        if prefix.count > 1 { prefix.append(UInt8(ascii: ",")) }
        let key = Array(#""padding":""#.utf8), end = Array(#""}"#.utf8)
        let target = deviceAnswerSizes.lowerBound + Int(random.uniform(below: UInt64(deviceAnswerSizes.count)))
        let room = max(0, target - prefix.count - key.count - end.count)
        // Base64 of a multiple of 3 bytes has no `=`, so its length is any multiple of 4; blanks make up the rest.
        let paddingBytes = room / 4 * 3
        let blanks = room - paddingBytes / 3 * 4
        let padding = Array(Data(random.bytes(count: paddingBytes)).base64EncodedString().utf8)
        let bytes = prefix + Array(repeating: UInt8(ascii: " "), count: blanks) + key + padding + end
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: .init(bytes: bytes)))
    }

    struct EmptyBody: Encodable {}

    static func refusal(_ refusal: ENXRefusal) -> Response {
        json(.init(code: refusal.status), ErrorBody(refusal))
    }

    /// A missing, unknown or wrong-role key: JSON when the caller speaks it (its `Accept` or `Content-Type` says so),
    /// Go's plain-text error otherwise.
    static func unauthorized(_ request: Request) -> Response {
        let speaksJSON = [request.headers[.accept], request.headers[.contentType]].contains { $0?.contains(contentType) == true }
        if speaksJSON { return refusal(ENXRefusal(401, "", "unauthorized")) }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .unauthorized, headers: headers, body: .init(byteBuffer: .init(string: "unauthorized\n")))
    }

    /// Too many wrong codes from this phone, its network or everyone: the reference's rate limiter's answer, plain
    /// text, with the time after which the phone's own allowance has a guess again.
    struct TooManyGuesses: Error {}

    static func tooManyGuesses(retryAfterSeconds: Int) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.retryAfter] = String(retryAfterSeconds)
        return Response(status: .tooManyRequests, headers: headers, body: .init(byteBuffer: .init(string: "Too Many Requests\n")))
    }

    static func padding(_ random: any RandomSource) -> String {
        Data(random.bytes(count: 1024 + Int(random.uniform(below: 1024)))).base64EncodedString()
    }

    static func json(_ status: HTTPResponse.Status, _ body: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The bodies are structs of strings, numbers and booleans: encoding them cannot fail.
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: .init(byteBuffer: .init(bytes: data)))
    }

    struct ErrorBody: Encodable {
        let error: String
        let errorCode: String
        let error_code: String

        init(_ refusal: ENXRefusal) {
            error = refusal.message
            errorCode = refusal.errorCode
            error_code = refusal.errorCode
        }
    }

    /// A success's fields and its padding, in one object.
    struct Padded<Body: Encodable>: Encodable {
        let body: Body
        let padding: String

        func encode(to encoder: any Encoder) throws {
            try body.encode(to: encoder)
            var container = encoder.container(keyedBy: PaddingKey.self)
            try container.encode(padding, forKey: .padding)
        }

        enum PaddingKey: String, CodingKey { case padding }
    }
}

extension ENXRefusal {
    /// The body could not be read: 400 with `code`, which differs by endpoint (`unparsable_request`,
    /// `token_invalid`, or none).
    static func unparsable(_ code: String) -> ENXRefusal {
        ENXRefusal(400, code, "bad request")
    }
}
