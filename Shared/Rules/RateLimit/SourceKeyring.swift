import Crypto
import Foundation

/// The key under which rate limiters keep sources: HMAC-SHA256 under a random key that lives in memory only and is
/// replaced every `lifetime`, so that a table of sources cannot be turned back into addresses without the key, nor
/// after a rotation with an old copy of the process's memory. A holder forgets its table when the key is replaced
/// (the new key cannot find its entries). Not locked: its holder calls it under its own lock.
struct SourceKeyring {
    private let lifetime: TimeInterval
    private let random: any RandomSource
    private var key: SymmetricKey
    private var expires: Date

    init(lifetime: TimeInterval, random: any RandomSource, now: Date) {
        precondition(lifetime > 0)
        self.lifetime = lifetime
        self.random = random
        key = SymmetricKey(data: random.bytes(count: 32))
        expires = now.addingTimeInterval(lifetime)
    }

    /// The identifier of `source` under the current key, and whether the key was replaced first (its holder then
    /// drops its table).
    mutating func identifier(of source: some Sequence<UInt8>, now: Date) -> (id: Data, rotated: Bool) {
        var rotated = false
        if now >= expires {
            key = SymmetricKey(data: random.bytes(count: 32))
            expires = now.addingTimeInterval(lifetime)
            rotated = true
        }
        return (Data(HMAC<SHA256>.authenticationCode(for: Array(source), using: key)), rotated)
    }
}
