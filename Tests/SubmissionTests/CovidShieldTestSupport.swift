import Crypto
import ExposureCore
import ExposureNaCl
import ExposureProtocol
import ExposureTestSupport
import Foundation
import SwiftProtobuf
import Testing

@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield
@testable import SubmissionDomain

/// What the CovidShield tests build their requests from: the sheet's keys and bytes (../shared/design/covidshield.md).
enum CovidShieldWire {
    static func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex.filter { !$0.isWhitespace })! }

    /// The sheet's retrieval key (00..1f) and a fixed sealing key, so that tests can seal pairs as the service does.
    static let hmacKey = [UInt8](0..<32)
    static let encryptionKey = [UInt8](repeating: 0x42, count: 32)
    static let settings = [
        "COVIDSHIELD_RETRIEVE_HMAC_KEY": hmacKey.hexString,
        "COVIDSHIELD_KEY_ENCRYPTION_KEY": encryptionKey.hexString,
    ]

    /// X25519 secrets of the sheet: SHA-256("app") and SHA-256("server").
    static let appPair = try! CryptoBox.keyPair(secretKey: Array(SHA256.hash(data: Array("app".utf8))))
    static let serverPair = try! CryptoBox.keyPair(secretKey: Array(SHA256.hash(data: Array("server".utf8))))

    /// 2020-05-20 16:00:00 UTC, the sheet's upload timestamp (and the hour, 441664, of its HMAC example).
    static let uploadDay: Int64 = 1_589_990_400
    /// 2020-05-20 00:00:00 UTC.
    static let midnight: Int64 = 1_589_932_800

    static func claimRequest(code: String, appKey: [UInt8]) -> [UInt8] {
        var request = Covidshield_KeyClaimRequest()
        request.oneTimeCode = code
        request.appPublicKey = Data(appKey)
        return try! request.serializedBytes()
    }

    static func key(_ byte: UInt8, rollingStart: UInt32, period: UInt32? = 144, risk: Int32 = 3, length: Int = 16) -> Covidshield_Key {
        var key = Covidshield_Key()
        key.keyData = Data(repeating: byte, count: length)
        key.rollingStartNumber = rollingStart
        if let period { key.rollingPeriod = period }
        key.transmissionRiskLevel = risk
        return key
    }

    static func upload(_ keys: [Covidshield_Key], timestamp: Int64) -> [UInt8] {
        var upload = Covidshield_Upload()
        upload.timestamp.seconds = timestamp
        upload.keys = keys
        return try! upload.serializedBytes()
    }

    /// An EncryptedUploadRequest sealing `payload` from `app` to `serverKey`; each part may be overridden.
    static func sealed(
        _ payload: [UInt8], serverKey: [UInt8], app: CryptoBox.KeyPair = appPair, nonce: [UInt8]? = nil,
        sealedPayload: [UInt8]? = nil, sentServerKey: [UInt8]? = nil
    ) -> [UInt8] {
        let nonce = nonce ?? SystemRandomSource().bytes(count: 24)
        var request = Covidshield_EncryptedUploadRequest()
        request.serverPublicKey = Data(sentServerKey ?? serverKey)
        request.appPublicKey = Data(app.publicKey)
        request.nonce = Data(nonce)
        request.payload = Data(sealedPayload ?? (try! CryptoBox.seal(payload, nonce: Array(nonce.prefix(24)) + [UInt8](repeating: 0, count: max(0, 24 - nonce.count)), to: serverKey, from: app.secretKey)))
        return try! request.serializedBytes()
    }

    static func hmac(_ message: String, hour: Int64) -> String {
        Array(HMAC<SHA256>.authenticationCode(for: Array("\(message):\(hour)".utf8), using: SymmetricKey(data: hmacKey))).hexString
    }

    static func day(_ epochSeconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(epochSeconds))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// The Files of a retrieval body (length-prefixed), stopping at a zero length.
    static func files(_ body: [UInt8]) throws -> [(length: Int, file: Covidshield_File)] {
        var files: [(Int, Covidshield_File)] = []
        var offset = 0
        while offset + 4 <= body.count {
            let length = body[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            if length == 0 { break }
            files.append((length, try Covidshield_File(serializedBytes: Array(body[offset..<offset + length]))))
            offset += length
        }
        return files
    }
}

extension SubmissionHarness {
    static func runCovidShield(_ kind: TestDatabase, environment: [String: String] = [:], _ body: (SubmissionHarness) async throws -> Void) async throws {
        let start = Date(timeIntervalSince1970: TimeInterval(CovidShieldWire.uploadDay + 300))
        try await run(kind, start: start, environment: CovidShieldWire.settings.merging(environment) { $1 }) { harness in
            try await body(harness)
        }
    }

    func claimKey(_ body: [UInt8]) async throws -> TestResponse {
        try await client.postRaw("/claim-key", body, contentType: "application/x-protobuf")
    }

    func upload(_ body: [UInt8]) async throws -> TestResponse {
        try await client.postRaw("/upload", body, contentType: "application/x-protobuf")
    }

    /// Issues a code at the stand-in and claims a key pair with a fresh app key: the server's public key.
    func claimPair(app: CryptoBox.KeyPair? = nil, region: String = "ON") async throws -> (app: CryptoBox.KeyPair, server: [UInt8]) {
        let app = try app ?? CryptoBox.keyPair(using: SystemRandomSource())
        let code = String(format: "%08d", Int.random(in: 0..<100_000_000))
        verification.issueCode(code, region: region)
        let response = try await claimKey(CovidShieldWire.claimRequest(code: code, appKey: app.publicKey))
        #expect(response.status == 200)
        let answer = try Covidshield_KeyClaimResponse(serializedBytes: response.body)
        return (app, Array(answer.serverPublicKey))
    }

    /// Uploads `keys` sealed to a claimed pair, timestamped now.
    func upload(_ keys: [Covidshield_Key], to pair: (app: CryptoBox.KeyPair, server: [UInt8]), timestamp: Int64? = nil) async throws -> TestResponse {
        let payload = CovidShieldWire.upload(keys, timestamp: timestamp ?? clock.now().epochSeconds)
        return try await upload(CovidShieldWire.sealed(payload, serverKey: pair.server, app: pair.app))
    }

    var nowSeconds: Int64 { clock.now().epochSeconds }
    var currentHour: Int64 { nowSeconds / 3600 }

    func retrieveDay(_ date: String, hmac: String? = nil) async throws -> TestResponse {
        try await client.get("/retrieve-day/\(date)/\(hmac ?? CovidShieldWire.hmac(date, hour: currentHour))")
    }

    func retrieveHour(_ date: String, _ hour: String, hmac: String? = nil) async throws -> TestResponse {
        try await client.get("/retrieve-hour/\(date)/\(hour)/\(hmac ?? CovidShieldWire.hmac("\(date):\(hour)", hour: currentHour))")
    }

    /// Keys as another upload path would have stored them, publishable, submitted at `at`.
    func storePublishable(_ keys: [DiagnosisKey], at: Date) async throws {
        let dialect = database.dialect
        _ = try await database.transaction { connection in
            try await DiagnosisKeyStore.insertPublishable(keys, submittedAt: at, dialect: dialect, on: connection)
        }
    }
}
