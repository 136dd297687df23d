import ExposureRules
import HummingbirdBcrypt
import NIOPosix

/// bcrypt hashing of officers' passwords, off the event loops (a cost-12 hash takes a quarter of a second).
public struct PasswordHasher: Sendable {
    public let cost: UInt8
    /// A hash of a random password at the same cost: checked when the user does not exist, so that a wrong
    /// name takes as long as a wrong password and names cannot be probed by timing.
    private let decoy: String

    public init(cost: Int) {
        self.cost = UInt8(cost)
        self.decoy = Bcrypt.hash(SystemRandomSource().bytes(count: 16).hexString, cost: UInt8(cost))
    }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; with no hash (unknown or disabled user) false, after the same work.
    public func verify(_ password: String, against hash: String?) async throws -> Bool {
        let decoy = self.decoy
        return try await NIOThreadPool.singleton.runIfActive {
            let matches = Bcrypt.verify(password, hash: hash ?? decoy)
            return hash != nil && matches
        }
    }
}

/// What a local password must be: long enough that bcrypt is not the only defence.
public enum PasswordPolicy {
    public static let minimumLength = 12
    public static let maximumLength = 72  // bcrypt ignores bytes beyond 72

    public static func problem(with password: String) -> String? {
        if password.count < minimumLength { return "a password needs at least \(minimumLength) characters" }
        if password.utf8.count > maximumLength { return "a password may have at most \(maximumLength) bytes" }
        return nil
    }

    /// A random password of 20 characters without look-alikes, for `users add` without input.
    public static func generate(using random: any RandomSource) -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return String((0..<20).map { _ in alphabet[Int(random.uniform(below: UInt64(alphabet.count)))] })
    }
}
