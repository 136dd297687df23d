import ExposureCore
import Foundation
import HummingbirdOTP

/// RFC 6238 codes of an officer's authenticator app (HummingbirdOTP computes them): 6 digits, HMAC-SHA-1, 30-second
/// steps, the parameters every authenticator app uses.
struct TOTPCheck: Sendable {
    static let digits = 6
    static let stepSeconds: Int64 = 30
    /// Steps either side of the current one that are accepted: a phone's clock a little off, or a code typed as it
    /// changed.
    static let tolerance: Int64 = 1
    /// The secret's length: 26 characters of the base32 alphabet (130 bits), the HMAC key as its ASCII bytes.
    static let secretLength = 26

    let secret: String

    /// The code of a time step, zero-padded.
    func code(step: Int64) -> String {
        let value = TOTP(secret: secret, length: Self.digits, timeStep: Int(Self.stepSeconds))
            .compute(date: Date(timeIntervalSince1970: TimeInterval(step * Self.stepSeconds)))
        let text = String(value)
        return String(repeating: "0", count: max(0, Self.digits - text.count)) + text
    }

    static func step(at date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) / stepSeconds }

    /// The step whose code `typed` is, within the tolerance of `now`, or nil. Every candidate is computed and compared
    /// in constant time, so the answer's timing says nothing about which step (or digit) was close.
    func matchingStep(_ typed: String, now: Date) -> Int64? {
        let typed = typed.filter { !$0.isWhitespace }
        let current = Self.step(at: now)
        var match: Int64?
        for step in (current - Self.tolerance)...(current + Self.tolerance) {
            let equal = SecretHash.constantTimeEquals(code(step: step), typed)
            if equal, match == nil { match = step }
        }
        return match
    }

    /// The `otpauth://totp/…` URI an authenticator app reads from the QR code.
    func uri(account: String, issuer: String) -> String {
        TOTP(secret: secret, length: Self.digits, timeStep: Int(Self.stepSeconds)).createAuthenticatorURL(label: "\(issuer):\(account)", issuer: issuer)
    }

    /// The base32 key for typing into an app by hand: the URI's `secret`.
    func base32(account: String, issuer: String) -> String {
        URLComponents(string: uri(account: account, issuer: issuer))?.queryItems?.first { $0.name == "secret" }?.value ?? ""
    }

    static func newSecret(using random: any RandomSource) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        return String((0..<secretLength).map { _ in alphabet[Int(random.uniform(below: UInt64(alphabet.count)))] })
    }
}
