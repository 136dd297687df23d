import Foundation

/// The form of a local officer's user name: 1 to 64 ASCII letters, digits, '.', '_', '@' or '-'. Accounts are
/// created only in this form, so a name typed at sign-in in any other form names no account.
public enum UserName {
    public static func isWellFormed(_ name: String) -> Bool {
        (1...64).contains(name.unicodeScalars.count) && name.unicodeScalars.allSatisfy { $0.isASCII && allowed.contains($0) }
    }

    private static let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._@-"))
}
