import ExposureTestSupport
import Foundation

/// A bare TCP exchange, for what an HTTP client library will not do: announce a body and not send it.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends `request` as is and returns what the server answers within `timeout` seconds (until it has sent a
    /// complete response head and `Content-Length` bytes of body, or closes the connection). The limit is generous
    /// because a whole suite running in parallel on two cores can hold a listener back for seconds; a complete
    /// answer returns at once. No answer at all is an error that says whether the server closed or stayed silent.
    static func exchange(port: Int, request: String, timeout: Int = 30) async throws -> String {
        let connection = try SlowConnection(port: port)
        guard connection.send(request) else { throw Failure(description: "send() failed") }
        let started = ContinuousClock.now
        let received = await connection.receive(within: Double(timeout), until: isComplete)
        guard !received.isEmpty else {
            let waited = ContinuousClock.now - started
            throw Failure(description: waited < .seconds(timeout) ? "closed without an answer after \(waited)" : "no answer within \(timeout) s")
        }
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
