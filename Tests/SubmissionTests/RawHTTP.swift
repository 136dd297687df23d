import ExposureTestSupport
import Foundation

/// A bare TCP exchange, for what an HTTP client library will not do: announce a body and not send it.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends `request` as is and returns what the server answers within `timeout` seconds (until it has sent a
    /// complete response head and `Content-Length` bytes of body, or closes the connection).
    static func exchange(port: Int, request: String, timeout: Int = 5) async throws -> String {
        let connection = try SlowConnection(port: port)
        guard connection.send(request) else { throw Failure(description: "send() failed") }
        let received = await connection.receive(within: Double(timeout), until: isComplete)
        return String(decoding: received, as: UTF8.self)
    }

    @Sendable private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<headEnd.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return true }
        return text.utf8.count - text[..<headEnd.upperBound].utf8.count >= length
    }
}
