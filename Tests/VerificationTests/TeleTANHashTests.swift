import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing
@testable import Verification

/// teleTANs at rest: a copy of the database must not be enough to recover or confirm one.
@Suite struct TeleTANHashTests {
    static func key(_ id: String, byte: UInt8) -> (entry: String, key: SecretHashKey) {
        let bytes = [UInt8](repeating: byte, count: 32)
        return ("\(id):" + Data(bytes).base64EncodedString(), SecretHashKey(id: id, key: bytes))
    }

    @Test(arguments: TestDatabase.all)
    func aDatabaseCopyWithoutTheKeyCannotConfirmAGuess(kind: TestDatabase) async throws {
        let right = Self.key("k1", byte: 1), wrong = Self.key("k1", byte: 2)
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_HASH_KEYS": right.entry]) { h in
            let teleTAN = try await h.newTeleTAN()
            let rows = try await h.teleTANRows()
            try #require(rows.count == 1)
            let stored = rows[0].hash
            #expect(try await h.teleTANKeyIDs() == ["k1"])
            // What an attacker with the dump can compute: the plain hash, the code's own hashing under any other key.
            #expect(stored != SecretHash.sha256Hex(teleTAN))
            #expect(stored != TypedSecretHasher(keys: [wrong.key], acceptsLegacy: false).hash(teleTAN).hash)
            // Only the key outside the database makes the match.
            #expect(stored == TypedSecretHasher(keys: [right.key]).hash(teleTAN).hash)
            try #require(try await h.register(teleTAN: teleTAN).status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func rotationKeepsLiveTeleTANsOfOlderKeysUntilTheKeyIsDropped(kind: TestDatabase) async throws {
        let one = Self.key("k1", byte: 1), two = Self.key("k2", byte: 2)
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_HASH_KEYS": one.entry]) { h in
            let first = try await h.newTeleTAN()
            let second = try await h.newTeleTAN()
            // Key 2 becomes current; key 1 is still listed for lookups.
            try await h.withAnotherVerification(environment: ["TELETAN_HASH_KEYS": "\(two.entry),\(one.entry)"]) { rotated in
                try #require(try await rotated.register(teleTAN: first).status == 201)
                let third = try await rotated.newTeleTAN()
                #expect(try await h.teleTANKeyIDs().sorted() == ["k1", "k1", "k2"])
                // Key 1 is dropped: what it hashed is found no more, what key 2 hashed still is.
                try await h.withAnotherVerification(environment: ["TELETAN_HASH_KEYS": two.entry]) { later in
                    try #require(try await later.register(teleTAN: second).status == 400)
                    try #require(try await later.register(teleTAN: third).status == 201)
                }
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func rowsOfBeforeKeyedHashesRegisterUntilTheyExpire(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            // A row as the schema before version 4 wrote it: plain SHA-256, no key id (the migration's default applies).
            let now = h.clock.now().epochSeconds
            let random = SeededRandomSource(seed: 51)
            let old = Codes.teleTAN(using: random), expired = Codes.teleTAN(using: random)
            for (teleTAN, validUntil) in [(old, now + 3600), (expired, now + 10)] {
                try await h.database.withConnection { connection in
                    try await connection.raw("""
                        INSERT INTO teletans (teletan_hash, type, valid_until, created_at) VALUES (\(bind: SecretHash.sha256Hex(teleTAN)), 'TEST', \(bind: validUntil), \(bind: now))
                        """).run()
                }
            }
            #expect(try await h.teleTANKeyIDs() == ["sha256", "sha256"])
            h.clock.advance(by: 60)
            try #require(try await h.register(teleTAN: expired).status == 400)
            try #require(try await h.register(teleTAN: old).status == 201)
        }
    }

    @Test func verificationRefusesToStartWithoutAKey() throws {
        var settings = VerificationHarness.baseSettings
        settings["TELETAN_HASH_KEYS"] = nil
        #expect(throws: ConfigurationError(variable: "TELETAN_HASH_KEYS", reason: "is required (or TELETAN_HASH_KEYS_FILE, the path of a file holding it)")) {
            try VerificationConfiguration(TestServices.settings(settings))
        }
        for bad in ["k1", "k1:c2hvcnQ=", "sha256:" + Data(repeating: 1, count: 32).base64EncodedString(), "a b:" + Data(repeating: 1, count: 32).base64EncodedString()] {
            settings["TELETAN_HASH_KEYS"] = bad
            #expect(throws: ConfigurationError.self) { try VerificationConfiguration(TestServices.settings(settings)) }
        }
    }

    @Test func theKeysCanComeFromAFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try SecretFile.write("# current first\n\(Self.key("k2", byte: 2).entry)\n\(Self.key("k1", byte: 1).entry)\n", to: file)
        var settings = VerificationHarness.baseSettings
        settings["TELETAN_HASH_KEYS"] = nil
        settings["TELETAN_HASH_KEYS_FILE"] = file.path
        #expect(try VerificationConfiguration(TestServices.settings(settings)).teleTANHashKeys.map(\.id) == ["k2", "k1"])
        settings["TELETAN_HASH_KEYS_FILE"] = file.path + "-missing"
        #expect(throws: ConfigurationError.self) { try VerificationConfiguration(TestServices.settings(settings)) }
    }
}
