import HTTPTypes
import Hummingbird
import NIOCore

/// A plain-text answer as Go's `net/http` writes one with `http.Error`: `text/plain; charset=utf-8`,
/// `X-Content-Type-Options: nosniff`, and the message followed by a line break. The app families whose reference
/// servers were written in Go (CovidShield) are answered so, byte for byte.
public enum GoPlainText {
    /// `message` and a line break, as `http.Error(w, message, status)` writes it.
    public static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        response(status, body: message + "\n")
    }

    /// `body` exactly as given, with the headers `http.Error` sets.
    public static func response(_ status: HTTPResponse.Status, body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
