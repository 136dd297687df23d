import ExposureCore
import ExposureNaCl
import ExposureProtocol
import ExposureTestSupport
import Foundation
import JWTKit
import Testing

@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield
@testable import Verification
@testable import VerificationDomain

/// The CovidShield story against the real verification service over HTTP, on both databases: an officer issues a
/// code, the app claims a key pair with it, uploads sealed keys, and finds them in the hour's stream.
@Suite struct CovidShieldEndToEndTests {
    static func issueCode(_ stack: RealVerificationStack) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: stack.officerKey)
        let token = try await keys.sign(OfficerClaims(
            exp: .init(value: stack.clock.now().addingTimeInterval(300)), iss: "test-officers", aud: "verification", sub: "officer-1",
            realm_access: .init(roles: ["c19hotline"])))
        let issued = try await stack.verificationInternal.postJSON("/version/v1/codes", ["kind": "COVIDSHIELD"], headers: [("Authorization", "Bearer \(token)")])
        #expect(issued.status == 201)
        return try #require(issued.json["code"] as? String)
    }

    @Test(arguments: TestDatabase.all)
    func aCodeFromVerificationClaimsAPairWhoseUploadIsRetrieved(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let code = try await Self.issueCode(stack)
            let app = try CryptoBox.keyPair(using: SystemRandomSource())
            let claim = try await stack.submission.postRaw("/claim-key", CovidShieldWire.claimRequest(code: code, appKey: app.publicKey), contentType: "application/x-protobuf")
            #expect(claim.status == 200)
            let server = Array(try Covidshield_KeyClaimResponse(serializedBytes: claim.body).serverPublicKey)
            #expect(server.count == 32)
            // Spent: the same code again is a wrong code.
            let other = try CryptoBox.keyPair(using: SystemRandomSource())
            let again = try await stack.submission.postRaw("/claim-key", CovidShieldWire.claimRequest(code: code, appKey: other.publicKey), contentType: "application/x-protobuf")
            #expect(again.status == 401 && again.body == [0x08, 0x02])

            let now = stack.clock.now().epochSeconds
            let key = CovidShieldWire.key(0x5A, rollingStart: UInt32(now / 86_400 * 144 - 144))
            let payload = CovidShieldWire.upload([key], timestamp: now)
            let upload = try await stack.submission.postRaw("/upload", CovidShieldWire.sealed(payload, serverKey: server, app: app), contentType: "application/x-protobuf")
            #expect(upload.status == 200 && upload.body == [0x08, 0x00])
            #expect(try await stack.store.all().map(\.key.originCountry) == ["ON"])

            stack.clock.advance(by: 3600)
            let hour = now / 3600, current = hour + 1
            let date = CovidShieldWire.day(hour * 3600), hh = String(format: "%02d", hour % 24)
            let stream = try await stack.submission.get("/retrieve-hour/\(date)/\(hh)/\(CovidShieldWire.hmac("\(date):\(hh)", hour: current))")
            #expect(stream.status == 200)
            let files = try CovidShieldWire.files(stream.body)
            #expect(files.map(\.file.header.region) == ["ON"])
            #expect(files.flatMap(\.file.key).map(\.keyData) == [key.keyData])
        }
    }

    /// The attack of issue #58 through the app's own endpoint: 250 phones in ten /24s of 127.0.0.0/8 claim with
    /// wrong codes at full speed. Verification's one bucket of the kind (30 wrong codes, 120 an hour) used to block
    /// every claim of the replica; submission now passes each phone's origin on (keyed hashes of its address and
    /// network), and a phone of another network claims its pair.
    @Test(arguments: TestDatabase.all)
    func wrongCodesFromManyNetworksBlockNoClaimElsewhere(kind: TestDatabase) async throws {
        // The harness's client is the trusted proxy: `X-Forwarded-For` names the phone. The attack's speed is not
        // what is tested (the buckets count guesses, not their rate), so a few connections and a patient call to
        // verification keep a loaded CI machine from turning a guess into a timeout that counts as no answer.
        let settings: [String: String] = ["TRUSTED_PROXIES": "127.0.0.1", "VERIFICATION_TIMEOUT": "30s"]
        try await RealVerificationStack.run(kind, settings: [.submission: settings]) { stack in
            let code = try await Self.issueCode(stack)
            let random = SeededRandomSource(seed: 81)
            let claims = try (0..<500).map { n in
                let wrong = String(format: "%08d", Int(random.uniform(below: 100_000_000)))
                return (body: CovidShieldWire.claimRequest(code: wrong, appKey: try CryptoBox.keyPair(using: random).publicKey), address: "127.1.\(n % 10).\(n % 250 / 10 + 1)")
            }
            let statuses = try await withManyConnections(16) { http in
                let submission = stack.submission.using(http)
                return try await concurrently(over: claims) { claim in
                    try await submission.postRaw(
                        "/claim-key", claim.body, headers: [("X-Forwarded-For", claim.address)], contentType: "application/x-protobuf"
                    ).status
                }
            }
            // The wrong codes looked up: the kind's shared burst and at most one per network from the reserve.
            let wrongAnswers = statuses.filter { $0 == 401 }.count
            let answers = Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count)
            #expect(wrongAnswers >= 30 && wrongAnswers <= 40, "answers by status: \(answers)")
            #expect(Set(statuses).isSubset(of: [401, 429]), "answers by status: \(answers)")
            let app = try CryptoBox.keyPair(using: SystemRandomSource())
            let claim = try await stack.submission.postRaw(
                "/claim-key", CovidShieldWire.claimRequest(code: code, appKey: app.publicKey),
                headers: [("X-Forwarded-For", "127.200.0.1")], contentType: "application/x-protobuf"
            )
            #expect(claim.status == 200)
        }
    }
}
