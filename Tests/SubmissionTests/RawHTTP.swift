import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bare TCP exchange, for what an HTTP client library will not do: announce a body and not send it.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends `request` as is and returns what the server answers within `timeout` seconds (until it has sent a
    /// complete response head and `Content-Length` bytes of body, or closes the connection).
    static func exchange(port: Int, request: String, timeout: Int = 5) async throws -> String {
        try await Task.detached {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "socket() failed") }
            defer { close(fd) }
            var tv = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw Failure(description: "connect() failed") }
            let bytes = Array(request.utf8)
            guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw Failure(description: "send() failed") }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !isComplete(received) {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }  // closed, or the timeout passed
                received += buffer[0..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }.value
    }

    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<headEnd.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return true }
        return text.utf8.count - text[..<headEnd.upperBound].utf8.count >= length
    }
}
