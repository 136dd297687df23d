import Crypto
import ExposureCore
import Foundation
import VerificationDomain
import VerificationENX

/// Verification's health authorities and their signing keys, as the ENX family asks for them (`ENXAuthorities`).
struct ENXAuthorityDirectory: ENXAuthorities {
    let authorities: AuthorityStore
    let signingKeys: AuthoritySigningKeyStore
    let database: Database
    /// The installation's limits on each issuer key.
    let issuerLimit: IssuerRateLimit
    let clock: any WallClock
    let random: any RandomSource

    func isServed(_ authority: String) async throws -> Bool {
        guard let found = try await authorities.authority(id: authority) else { return false }
        return !found.settings.disabled
    }

    /// The active version; an authority that has none yet gets its first, made by the family (`created_by` `enx`),
    /// so that issuing ENX codes needs no step beyond making the keys. Supervisors rotate it as any other.
    func signer(of authority: String) async throws -> ENXSigner {
        if let (key, privateKey) = try await signingKeys.signer(authority: authority) {
            return ENXSigner(keyID: key.keyID, privateKey: privateKey)
        }
        _ = try await signingKeys.rotate(authority: authority, random: random, now: clock.now(), createdBy: "enx")
        guard let (key, privateKey) = try await signingKeys.signer(authority: authority) else { throw NoSigningKey() }
        return ENXSigner(keyID: key.keyID, privateKey: privateKey)
    }

    struct NoSigningKey: Error {}

    /// A published (not retired) version's public half.
    func publicKey(keyID: String) async throws -> P256.Signing.PublicKey? {
        guard let (authority, version) = AuthoritySigningKey.parse(keyID: keyID) else { return nil }
        return try await signingKeys.list(authority: authority).first { $0.version == version && $0.state != .retired }?.publicKey
    }

    /// The counters of issuer keys (`teletan_issuance_counts`), under the key's name with `enx:` before it, so that an
    /// ENX key and a CovidShield or ProteGO issuer of the same name count apart.
    func countIssuance(_ count: Int, keyName: String, authority: String) async throws -> Int64? {
        let now = clock.now()
        let limit = try await authorities.authority(id: authority)?.issuerLimit(within: issuerLimit) ?? issuerLimit
        let counters = limit.counters(issuer: "enx:\(keyName)", now: now)
        do {
            _ = try await database.transaction { connection in
                try await TeleTANStore.count(counters.map { .init(scope: $0.scope, limit: $0.limit, windowStart: $0.windowStart) }, windowStart: 0, amount: count, on: connection)
            }
            return nil
        } catch let full as TeleTANStore.CounterAtLimit {
            return max(1, counters[full.index].windowEnd - now.epochSeconds)
        }
    }
}
