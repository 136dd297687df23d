import ExposureCore
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Submission
@testable import SubmissionCore
@testable import Verification
@testable import VerificationDomain

/// The ProteGO story against the real verification service over HTTP: a PIN issued as the portal issues it, redeemed
/// once through `getAccessToken`, its upload token spent only by a stored upload, both dead after 30 minutes
/// (acceptance items 1–3, 6, 9–11 of the design sheet, fake-free).
@Suite struct ProteGOEndToEndTests {
    /// A new PIN from an officer with the hotline role (`POST /version/v1/codes`, kind PROTEGO).
    func pin(_ stack: RealVerificationStack) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: stack.officerKey)
        let token = try await keys.sign(OfficerClaims(
            exp: .init(value: stack.clock.now().addingTimeInterval(300)), iss: "test-officers", aud: "verification", sub: "officer-1",
            realm_access: .init(roles: ["c19hotline"])))
        let issued = try await stack.verificationInternal.postJSON("/version/v1/codes", ["kind": "PROTEGO"], headers: [("Authorization", "Bearer \(token)")])
        #expect(issued.status == 201, "\(issued.text)")
        return try #require(issued.json["code"] as? String)
    }

    func accessToken(_ stack: RealVerificationStack, pin: String) async throws -> TestResponse {
        try await stack.submission.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": pin]])
    }

    func upload(_ stack: RealVerificationStack, token: String, bytes: [UInt8]) async throws -> TestResponse {
        let keys = bytes.enumerated().map { ProteGOPayloads.key($0.element, now: stack.clock.now(), daysAgo: $0.offset + 1) }
        return try await stack.submission.postJSON(ProteGOPayloads.uploadPath, ProteGOPayloads.iOS(keys: keys, token: token))
    }

    @Test(arguments: TestDatabase.all)
    func aPINUploadsOnceWithItsToken(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let pin = try await pin(stack)
            #expect(pin.wholeMatch(of: /[0-9A-Z]{6}/) != nil)
            let first = try await accessToken(stack, pin: pin)
            #expect(first.status == 200, "\(first.text)")
            let token = try #require((first.json["result"] as? [String: Any])?["accessToken"] as? String)
            try await accessToken(stack, pin: pin).expectCallableError(404, "NOT_FOUND", message: "Invalid code")

            // An invalid payload first: refused, the token unspent.
            let invalid = try await upload(stack, token: token, bytes: Array(repeating: 1, count: 16))
            invalid.expectCallableError(400, "INVALID_ARGUMENT")
            let stored = try await upload(stack, token: token, bytes: [1, 2, 3])
            #expect(stored.status == 200, "\(stored.text)")
            #expect(stored.text == #"{"result":""}"#)
            #expect(try await stack.store.count() == 3)
            try await upload(stack, token: token, bytes: [4]).expectCallableError(401, "UNAUTHENTICATED", message: "")
        }
    }

    /// The attack of issue #58 on ProteGO's PIN exchange: 250 phones in ten /24s of 127.0.0.0/8 send wrong PINs at
    /// full speed. Submission passes each phone's origin on, and a phone of another network exchanges its PIN.
    @Test(arguments: TestDatabase.all)
    func wrongPINsFromManyNetworksBlockNoExchangeElsewhere(kind: TestDatabase) async throws {
        // The harness's client is the trusted proxy: `X-Forwarded-For` names the phone.
        try await RealVerificationStack.run(kind, settings: [.submission: ["TRUSTED_PROXIES": "127.0.0.1"]]) { stack in
            let pin = try await pin(stack)
            let random = SeededRandomSource(seed: 91)
            let guesses = (0..<500).map { n in (pin: OneTimeCodeKind.proteGO.generate(using: random), address: "127.1.\(n % 10).\(n % 250 / 10 + 1)") }
            let statuses = try await withManyConnections(64) { http in
                let submission = stack.submission.using(http)
                return try await concurrently(over: guesses) { guess in
                    try await submission.postJSON(
                        ProteGOPayloads.accessTokenPath, ["data": ["code": guess.pin]], headers: [("X-Forwarded-For", guess.address)]
                    ).status
                }
            }
            // The wrong PINs looked up: the kind's shared burst and at most one per network from the reserve.
            let wrongAnswers = statuses.filter { $0 == 404 }.count
            #expect(wrongAnswers >= 30 && wrongAnswers <= 40)
            #expect(!statuses.contains(200))
            let exchange = try await stack.submission.postJSON(
                ProteGOPayloads.accessTokenPath, ["data": ["code": pin]], headers: [("X-Forwarded-For", "127.200.0.1")]
            )
            #expect(exchange.status == 200, "\(exchange.text)")
        }
    }

    @Test(arguments: TestDatabase.all)
    func pinsAndTokensDieAfterThirtyMinutes(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let unused = try await pin(stack)
            let redeemed = try await pin(stack)
            let token = try #require((try await accessToken(stack, pin: redeemed).json["result"] as? [String: Any])?["accessToken"] as? String)
            stack.clock.advance(by: 31 * 60)
            try await accessToken(stack, pin: unused).expectCallableError(404, "NOT_FOUND", message: "Invalid code")
            try await upload(stack, token: token, bytes: [9]).expectCallableError(401, "UNAUTHENTICATED", message: "")
            #expect(try await stack.store.count() == 0)
        }
    }
}
