import _CryptoExtras
import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing

/// The LEMON sheet's acceptance item 14: with payload encryption on, bodies are `IV || AES-256-CBC || HMAC-SHA256`
/// under keys derived from the pre-master secret and both seeds; a tampered MAC is refused, every answer is sealed
/// with a fresh IV. The keys are derived here from the documented construction, not with the service's code.
@Suite struct LemonEncryptionTests {
    struct Keys {
        let aes: SymmetricKey
        let mac: SymmetricKey

        init(secret: Data, clientSeed: Data, serverSeed: Data) {
            let salt = clientSeed + serverSeed
            aes = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: salt, info: Data("lemon-aes".utf8), outputByteCount: 32)
            mac = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: salt, info: Data("lemon-mac".utf8), outputByteCount: 32)
        }

        /// A request's sealed body: its MAC over `IV || ciphertext` under the request's own key,
        /// `HMAC-SHA256(MAC key, "lemon-request" 0x00 METHOD 0x00 target)`. No JSON: an empty plaintext.
        func seal(_ json: Any?, method: String, target: String) throws -> [UInt8] {
            let plain = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
            let iv = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            let body = iv + (try AES._CBC.encrypt(plain, using: aes, iv: try AES._CBC.IV(ivBytes: iv)))
            let line = Data("lemon-request".utf8) + [0] + Data(method.utf8) + [0] + Data(target.utf8)
            let requestKey = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: line, using: mac)))
            return Array((body + Data(HMAC<SHA256>.authenticationCode(for: body, using: requestKey))).base64EncodedString().utf8)
        }

        /// The IV and the JSON of a sealed answer, after checking its MAC.
        func open(_ text: String) throws -> (iv: Data, json: [String: Any]) {
            let bytes = try #require(Data(base64Encoded: text))
            let body = bytes.dropLast(32)
            #expect(HMAC<SHA256>.isValidAuthenticationCode(bytes.suffix(32), authenticating: body, using: mac))
            let iv = Data(body.prefix(16))
            let plain = try AES._CBC.decrypt(body.dropFirst(16), using: aes, iv: try AES._CBC.IV(ivBytes: iv))
            return (iv, try #require(try JSONSerialization.jsonObject(with: plain) as? [String: Any]))
        }
    }

    @Test(arguments: TestDatabase.all)
    func bodiesAreSealedBothWays(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind, settings: ["LEMON_PAYLOAD_ENCRYPTION": "true"]) { h in
            let (token, _, _, keys) = try await Self.register(h, LemonTestDevice())
            let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "text/plain")]

            var ivs: Set<Data> = []
            for example in LemonSurveyTests.seedExamples.prefix(2) {
                let answer = try await h.client.request(.POST, "/api/v1/submission/covid", headers: headers, body: try keys.seal(example, method: "POST", target: "/api/v1/submission/covid"))
                #expect(answer.status == 201)
                let (iv, json) = try keys.open(answer.text)
                #expect((json["meta"] as? [String: Any])?["code"] as? Int == 201)
                ivs.insert(iv)
            }
            let symptoms = try await h.client.request(.GET, "/api/v1/symptoms", headers: headers)
            let (iv, json) = try keys.open(symptoms.text)
            ivs.insert(iv)
            #expect((json["data"] as? [Any])?.count == 12, "\(json)")
            #expect(ivs.count == 3)

            // A changed byte of the MAC, or of the ciphertext: refused before anything is decrypted, the refusal sealed.
            var tampered = try keys.seal(LemonSurveyTests.seedExamples[0], method: "POST", target: "/api/v1/submission/covid")
            var raw = try #require(Data(base64Encoded: Data(tampered)))
            raw[raw.count - 1] ^= 1
            tampered = Array(raw.base64EncodedString().utf8)
            let refused = try await h.client.request(.POST, "/api/v1/submission/covid", headers: headers, body: tampered)
            #expect(refused.status == 400)
            #expect((try keys.open(refused.text).json["meta"] as? [String: Any])?["code"] as? Int == 400)
            let plain = try await h.client.request(.POST, "/api/v1/submission/covid", headers: headers,
                                                   body: Array(try JSONSerialization.data(withJSONObject: LemonSurveyTests.seedExamples[0])))
            #expect(plain.status == 400)
            let stored = try await h.base.database.withConnection { connection in
                try await connection.raw("SELECT COUNT(*) AS n FROM lemon_surveys").first()?.decode(column: "n", as: Int.self)
            }
            #expect(stored == 2)
            // Without a token there are no keys: the 401 is in the clear.
            try await h.send("GET", "/api/v1/symptoms", token: nil).expectEnvelope(401)
        }
    }

    /// A registration with payload encryption on, and the session keys the app derives for it.
    static func register(_ h: LemonHarness, _ device: LemonTestDevice) async throws -> (token: String, id: String, material: [UInt8], keys: Keys) {
        let secret = Data((0..<48).map { _ in UInt8.random(in: 0...255) })
        let seed = LemonTestDevice.seed()
        let registered = try await h.devices(device.registration(now: h.clock.now(), seed: seed, secret: secret))
        registered.expectEnvelope(201)
        let token = try #require(registered.lemonData["accessToken"] as? String)
        let serverSeedText = try #require(registered.lemonData["seed"] as? String)
        let serverSeed = try #require(Data(base64Encoded: serverSeedText))
        let clientSeed = try #require(Data(base64Encoded: seed))
        let keys = Keys(secret: secret, clientSeed: clientSeed, serverSeed: serverSeed)
        let material = keys.aes.withUnsafeBytes { Array($0) } + keys.mac.withUnsafeBytes { Array($0) }
        return (token, try LemonHarness.deviceID(ofToken: token), material, keys)
    }

    static func sessionKeys(_ h: LemonHarness, id: String) async throws -> [UInt8]? {
        try await h.base.database.withConnection { connection in
            try await connection.raw("SELECT session_keys FROM lemon_devices WHERE id = \(bind: id)").first()?
                .decode(column: "session_keys", as: Data?.self).map(Array.init)
        }
    }

    /// Session keys are kept sealed to their device: the database holds no byte string of the keys, and sealed keys
    /// copied onto another device's row (or keys stored in the clear, as before migration 10) open no session.
    @Test(arguments: TestDatabase.all)
    func sessionKeysAreStoredSealedToTheirDevice(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind, settings: ["LEMON_PAYLOAD_ENCRYPTION": "true"]) { h in
            let first = try await Self.register(h, LemonTestDevice())
            let second = try await Self.register(h, LemonTestDevice())
            for device in [first, second] {
                let stored = try #require(try await Self.sessionKeys(h, id: device.id))
                #expect(stored.count > LemonPayloadCipher.materialBytes)
                for part in [device.material, Array(device.material.prefix(32)), Array(device.material.suffix(32))] {
                    #expect(Data(stored).range(of: Data(part)) == nil && Data(stored).range(of: Data(part.hexString.utf8)) == nil,
                            "the stored session keys hold the keys in the clear")
                }
            }
            func symptoms(_ device: (token: String, id: String, material: [UInt8], keys: Keys)) async throws -> TestResponse {
                try await h.client.request(.GET, "/api/v1/symptoms", headers: [("Authorization", "Bearer \(device.token)")])
            }
            #expect(try await symptoms(second).status == 200)
            // The first device's sealed keys copied onto the second's row: they do not open there.
            let copied = try #require(try await Self.sessionKeys(h, id: first.id))
            try await h.base.database.withConnection { connection in
                try await connection.raw("UPDATE lemon_devices SET session_keys = \(bind: Data(copied)) WHERE id = \(bind: second.id)").run()
            }
            try await symptoms(second).expectEnvelope(401)
            #expect(try await symptoms(first).status == 200)
            // Keys in the clear, as rows held them before: not taken as keys.
            try await h.base.database.withConnection { connection in
                try await connection.raw("UPDATE lemon_devices SET session_keys = \(bind: Data(second.material)) WHERE id = \(bind: second.id)").run()
            }
            try await symptoms(second).expectEnvelope(401)
        }
    }

    @Test func theCipherOpensWhatItSeals() throws {
        let cipher = LemonPayloadCipher(preMasterSecret: Array(repeating: 1, count: 48), clientSeed: Array(repeating: 2, count: 32),
                                        serverSeed: Array(repeating: 3, count: 32))
        let random = SeededRandomSource(seed: 7)
        let sealed = try cipher.seal(Array("{}".utf8), random: random)
        #expect(try cipher.open(sealed) == Array("{}".utf8))
        #expect(try cipher.seal(Array("{}".utf8), random: random) != sealed)
        #expect(throws: LemonRejection.self) { try cipher.open("AAAA") }
    }
}
