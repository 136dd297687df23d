import Crypto
import ExposureCore
import Foundation
import SQLKit
import SubmissionCore
import SubmissionDomain

/// The server key pairs of CovidShield claims (`covidshield_key_pairs`) and the app keys ever bound
/// (`covidshield_bound_app_keys`, SHA-256 of each: an app key is bound for ever, and nothing more is needed to say so).
/// A pair's secret half is stored sealed (`SecretSealer`), beside the SHA-256 of the app key that claimed
/// it: an upload sealed under any other app key does not find the pair. The row is deleted once the pair is dead.
struct CovidShieldKeyPairStore: Sendable {
    let database: Database

    /// A live pair as an upload needs it.
    struct LivePair: Sendable {
        let sealedSecretKey: [UInt8]
        let region: String
    }

    /// What a new claim stores.
    struct NewPair: Sendable {
        let publicKey: [UInt8]
        let sealedSecretKey: [UInt8]
        let region: String
        /// Unix seconds.
        let validUntil: Int64
    }

    enum UploadOutcome: Sendable, Equatable {
        /// Stored; `inserted` keys were new and charged; `first` when they are the pair's first.
        case stored(inserted: Int, first: Bool)
        /// The new keys were more than the pair has left: nothing stored, nothing charged.
        case budgetUsedUp
    }

    /// As `Data`: SQLKit binds `[UInt8]` as an array of numbers, not as bytes.
    static func appKeyHash(_ appPublicKey: [UInt8]) -> Data { Data(SHA256.hash(data: appPublicKey)) }

    func isBound(appPublicKey: [UInt8]) async throws -> Bool {
        let hash = Self.appKeyHash(appPublicKey)
        return try await database.withConnection { connection in
            try await connection.raw("SELECT 1 AS bound FROM covidshield_bound_app_keys WHERE app_key_hash = \(bind: hash)").first() != nil
        }
    }

    /// Binds the app key and stores the pair in one transaction; false (nothing stored) when the app key was bound
    /// meanwhile by a concurrent claim.
    func bind(appPublicKey: [UInt8], pair: NewPair, now: Date) async throws -> Bool {
        let hash = Self.appKeyHash(appPublicKey)
        return try await database.transaction { connection in
            let bound = try await connection.raw("""
                INSERT INTO covidshield_bound_app_keys (app_key_hash, bound_at) VALUES (\(bind: hash), \(bind: now.epochSeconds)) \
                ON CONFLICT (app_key_hash) DO NOTHING RETURNING app_key_hash
                """).all()
            guard !bound.isEmpty else { return false }
            try await connection.raw("""
                INSERT INTO covidshield_key_pairs (server_public_key, sealed_secret_key, region, valid_until, keys_remaining, app_key_hash) \
                VALUES (\(bind: Data(pair.publicKey)), \(bind: Data(pair.sealedSecretKey)), \(bind: pair.region), \(bind: pair.validUntil), \
                \(bind: CovidShieldKeyPairPolicy.keyBudget), \(bind: hash))
                """).run()
            return true
        }
    }

    /// The pair with this public key, if it is still alive at `now` and was claimed with `appPublicKey` (the app
    /// uses one key pair for its claim and its uploads). Pairs claimed before the binding was kept (no hash) are
    /// found for any app key until they die.
    func live(serverPublicKey: [UInt8], appPublicKey: [UInt8], now: Date) async throws -> LivePair? {
        let appKeyHash = Self.appKeyHash(appPublicKey)
        return try await database.withConnection { connection in
            guard let row = try await connection.raw("""
                SELECT sealed_secret_key, region FROM covidshield_key_pairs \
                WHERE server_public_key = \(bind: Data(serverPublicKey)) AND valid_until > \(bind: now.epochSeconds) \
                AND (app_key_hash = \(bind: appKeyHash) OR app_key_hash IS NULL)
                """).first() else { return nil }
            return LivePair(
                sealedSecretKey: Array(try row.decode(column: "sealed_secret_key", as: Data.self)),
                region: try row.decode(column: "region", as: String.self)
            )
        }
    }

    /// Stores an upload's keys and charges the new ones to the pair, atomically: the charge is one conditional UPDATE
    /// in the transaction that inserts the keys, so concurrent uploads with one pair cannot overdraw its budget, and
    /// an upload that would is stored not at all.
    func storeUpload(_ keys: [DiagnosisKey], serverPublicKey: [UInt8], now: Date) async throws -> UploadOutcome {
        let dialect = database.dialect
        do {
            return try await database.transaction { connection in
                let inserted = try await DiagnosisKeyStore.insertPublishable(keys, submittedAt: now, dialect: dialect, on: connection)
                let charged = try await connection.raw("""
                    UPDATE covidshield_key_pairs SET keys_remaining = keys_remaining - \(bind: inserted) \
                    WHERE server_public_key = \(bind: Data(serverPublicKey)) AND keys_remaining >= \(bind: inserted) \
                    RETURNING keys_remaining
                    """).all()
                guard let remaining = try charged.first?.decode(column: "keys_remaining", as: Int.self) else { throw BudgetUsedUp() }
                return .stored(inserted: inserted, first: inserted > 0 && remaining + inserted == CovidShieldKeyPairPolicy.keyBudget)
            }
        } catch is BudgetUsedUp {
            return .budgetUsedUp
        }
    }

    /// Deletes the pairs that died before `now`: their secrets are no longer needed. The bound app keys stay.
    func purgeDead(now: Date) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("""
                DELETE FROM covidshield_key_pairs WHERE valid_until <= \(bind: now.epochSeconds) RETURNING valid_until
                """).all().count
        }
    }

    /// Thrown inside the transaction to roll the keys back.
    private struct BudgetUsedUp: Error {}
}
