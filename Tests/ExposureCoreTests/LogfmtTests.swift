import Foundation
import Testing
@testable import ExposureCore

/// No value written to a logfmt line can end that line or forge another.
@Suite struct LogfmtTests {
    /// The attack: a value that smuggles a carriage return and a fake second record into the log (a header, an
    /// error text). Before, `\r` passed unescaped, and log shippers that split on it saw a forged line.
    @Test func controlCharactersAreEscapedSoOneRecordStaysOneLine() {
        let forged = "x\r\nlevel=critical msg=\"forged\"\u{0}\u{1B}[31m\u{7F}\u{85}\u{2028}\t"
        let written = StructuredLogHandler.logfmtValue(forged)
        #expect(written == #""x\r\nlevel=critical msg=\"forged\"\u0000\u001b[31m\u007f\u0085\u2028\t""#)
        #expect(!written.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 })
    }

    @Test func everyControlCharacterIsEscaped() {
        let controls = (0..<0x20).map { $0 } + (0x7F...0x9F).map { $0 } + [0x2028, 0x2029]
        for value in controls {
            let scalar = Unicode.Scalar(UInt32(value))!
            let written = StructuredLogHandler.logfmtValue("a\(Character(scalar))b")
            #expect(written.hasPrefix("\"a\\") && written.hasSuffix("b\""), "U+\(String(value, radix: 16)): \(written.debugDescription)")
            #expect(!written.unicodeScalars.contains(scalar), "U+\(String(value, radix: 16)) written raw")
        }
    }

    @Test func plainWordsStayBareAndQuotesAndBackslashesAreEscaped() {
        #expect(StructuredLogHandler.logfmtValue("listening") == "listening")
        #expect(StructuredLogHandler.logfmtValue("") == "\"\"")
        #expect(StructuredLogHandler.logfmtValue("a b") == "\"a b\"")
        #expect(StructuredLogHandler.logfmtValue(#"C:\x"#) == #""C:\\x""#)
        #expect(StructuredLogHandler.logfmtValue("Grüße") == "Grüße")
    }
}
