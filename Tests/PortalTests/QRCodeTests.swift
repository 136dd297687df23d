import Foundation
@testable import PortalDomain
import Testing

/// The QR encoder against an independent decoder: zbarimg (Debian's zbar-tools) must read back exactly what was
/// encoded, at every version, and still does after damage the error correction is there to repair.
@Suite struct QRCodeTests {
    static let zbarimg = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// What zbarimg reads from the code's image (nil when it finds no code).
    static func decode(_ pgm: [UInt8]) throws -> String? {
        let zbarimg = try #require(zbarimg, "zbarimg is missing: apt-get install zbar-tools")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).pgm")
        try Data(pgm).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zbarimg)
        process.arguments = ["-q", "--raw", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Text of `count` characters of a URI's alphabet, the same for the same count.
    static func text(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:/?&=%.-")
        return String((0..<count).map { alphabet[($0 * 37 + count * 11) % alphabet.count] })
    }

    @Test(arguments: [1, 14, 15, 26, 27, 42, 43, 62, 63, 84, 85, 106, 107, 122, 123, 152, 153, 180, 181, 213])
    func theDecoderReadsWhatWasEncoded(length: Int) throws {
        let text = Self.text(length)
        let code = try QRCode(text: text)
        #expect(code.size == 17 + 4 * code.version)
        #expect(try Self.decode(code.pgm()) == text)
    }

    /// The largest of each version is that version; one byte more takes the next.
    @Test func eachVersionHoldsItsCapacity() throws {
        let capacities = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213]
        for (index, capacity) in capacities.enumerated() {
            #expect(try QRCode(text: Self.text(capacity)).version == index + 1)
            if index < 9 { #expect(try QRCode(text: Self.text(capacity + 1)).version == index + 2) }
        }
        #expect(throws: QRCode.TooLong(bytes: 214)) { try QRCode(text: Self.text(214)) }
    }

    /// A code with a block of modules inverted (a smudge) still reads: the Reed–Solomon codewords are right.
    @Test func aDamagedCodeIsRepaired() throws {
        let text = "otpauth://totp/ExposureSuite:anna?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=ExposureSuite"
        let code = try QRCode(text: text)
        var damaged = code.modules
        for y in 20..<24 { for x in 20..<24 { damaged[y][x].toggle() } }
        let smudged = QRCode(version: code.version, size: code.size, modules: damaged)
        #expect(smudged.modules != code.modules)
        #expect(try Self.decode(smudged.pgm()) == text)
    }

    @Test func theSVGDrawsEveryDarkModule() throws {
        let code = try QRCode(text: "hi")
        let svg = code.svg(label: "a \"label\" <b>")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 29 29\""))
        #expect(svg.contains(#"aria-label="a &quot;label&quot; &lt;b>""#))
        #expect(svg.components(separatedBy: "h1v1h-1z").count - 1 == code.modules.joined().filter { $0 }.count)
    }
}
