import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a new password for `users add` and `users set-password`: at a terminal it asks twice without echo;
/// otherwise it reads standard input (one line, as `echo "$PASSWORD" | portal-service users add …` sends it).
/// Nothing given means "generate one".
public enum PasswordInput {
    struct Mismatch: Error, CustomStringConvertible {
        var description: String { "the passwords differ" }
    }

    @Sendable public static func read() throws -> String? {
        guard isatty(STDIN_FILENO) == 1 else {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            let text = String(decoding: data, as: UTF8.self)
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.hasSuffix("\r") ? String(line.dropLast()) : line
            return trimmed.isEmpty ? nil : trimmed
        }
        let first = prompt("Password (empty to generate one): ")
        guard !first.isEmpty else { return nil }
        guard prompt("Repeat the password: ") == first else { throw Mismatch() }
        return first
    }

    /// One line from the terminal with echo switched off.
    private static func prompt(_ text: String) -> String {
        FileHandle.standardError.write(Data(text.utf8))
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return Swift.readLine(strippingNewline: true) ?? ""
    }
}
