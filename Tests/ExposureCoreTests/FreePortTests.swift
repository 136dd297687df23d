import ExposureTestSupport
import Foundation
import Testing

/// The ports handed to service processes of the end-to-end tests.
@Suite struct FreePortTests {
    /// Below the ephemeral range, where no outgoing connection takes them, and never the same twice.
    @Test func portsAreBelowTheEphemeralRangeAndDistinct() throws {
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let lowestEphemeral = try #require(range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        try #require(lowestEphemeral > 11_000, "this machine's ephemeral range starts at \(lowestEphemeral)")
        let ports = (0..<50).map { _ in ServiceProcess.freePort() }
        #expect(ports.allSatisfy { (10_000..<lowestEphemeral).contains($0) })
        #expect(Set(ports).count == ports.count)
    }
}
