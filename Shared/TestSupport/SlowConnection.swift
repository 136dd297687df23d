import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bare TCP connection to a listener on localhost that sends what a test says, when it says: the slow or silent
/// client of the listener-limit tests, which no HTTP client library imitates.
public final class SlowConnection: @unchecked Sendable {
    private let fd: Int32

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect() failed")
        }
    }

    deinit { close(fd) }

    /// Sends `text`; false once the server has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { systemSend(fd, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until `isComplete` says the bytes so far are whole, the server closes the connection, or `seconds` pass;
    /// returns what arrived.
    public func receive(within seconds: Double, until isComplete: @escaping @Sendable ([UInt8]) -> Bool) async -> [UInt8] {
        let fd = self.fd
        return await onThreadOfItsOwn {
            let deadline = Date().addingTimeInterval(seconds)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !isComplete(received), Date() < deadline {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }  // closed
                received += buffer[0..<count]
            }
            return received
        }
    }

    /// Waits up to `seconds` for the server to close the connection (reading and dropping whatever it sends);
    /// true when it did.
    public func closedByServer(within seconds: Double) async -> Bool {
        let fd = self.fd
        return await onThreadOfItsOwn {
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { return true }  // EOF or reset: closed
            }
            return false
        }
    }
}

/// The C library's `send`, named apart from `SlowConnection.send`.
private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, buffer, count, flags)
    #else
    Darwin.send(fd, buffer, count, flags)
    #endif
}
