import ExposureCore
import ExposureNaCl
import ExposureProtocol
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Submission
@testable import SubmissionCore
@testable import SubmissionDomain
@testable import Verification
@testable import VerificationDomain

/// Issue #58, item 1: every one-time credential stays in the family it was issued for. A credential of one family,
/// presented to another family's endpoint, is answered there exactly as an unknown one, spends nothing, and still
/// works in its own family. LEMON has no one-time code and no TAN (its devices authenticate with their own key pair),
/// so the families with credentials to cross are the Corona-Warn-App (teleTAN, TAN), ProteGO (PIN, access token) and
/// CovidShield (8-digit code, server key pair: `CovidShieldUploadTests.anUploadUnderAnotherAppKeyThanTheClaimsIsAnUnknownPair`).
@Suite struct FamilyLaneTests {
    // MARK: Against the real verification service

    /// An officer's token with both hotline roles.
    static func officerToken(_ stack: RealVerificationStack) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: stack.officerKey)
        return try await keys.sign(OfficerClaims(
            exp: .init(value: stack.clock.now().addingTimeInterval(300)), iss: "test-officers", aud: "verification", sub: "officer-lanes",
            realm_access: .init(roles: ["c19hotline"])))
    }

    /// A new one-time code of `kind` (`COVIDSHIELD`, `PROTEGO`) as the portal issues it.
    static func code(_ stack: RealVerificationStack, kind: String) async throws -> String {
        let issued = try await stack.verificationInternal.postJSON(
            "/version/v1/codes", ["kind": kind], headers: [("Authorization", "Bearer \(try await officerToken(stack))")])
        #expect(issued.status == 201, "\(issued.text)")
        return try #require(issued.json["code"] as? String)
    }

    static func teleTAN(_ stack: RealVerificationStack) async throws -> String {
        let issued = try await stack.verificationInternal.request(
            .POST, "/version/v1/tan/teletan", headers: [("Authorization", "Bearer \(try await officerToken(stack))"), ("X-CWA-TELETAN-TYPE", "TEST")])
        return try #require(issued.json["value"] as? String)
    }

    static func accessToken(_ stack: RealVerificationStack, pin: String) async throws -> TestResponse {
        try await stack.submission.postJSON(ProteGOPayloads.accessTokenPath, ["data": ["code": pin]])
    }

    static func proteGOToken(_ stack: RealVerificationStack) async throws -> String {
        let answer = try await accessToken(stack, pin: try await code(stack, kind: "PROTEGO"))
        return try #require((answer.json["result"] as? [String: Any])?["accessToken"] as? String)
    }

    static func cwaUpload(_ stack: RealVerificationStack, tan: String, firstByte: UInt8) async throws -> TestResponse {
        let today = Payloads.today(stack.clock.now())
        let keys = (0..<2).map { Payloads.key(firstByte + UInt8($0), today: today, daysAgo: Int32($0 + 1)) }
        return try await stack.submission.postRaw(
            SubmissionHarness.path, Payloads.bytes(keys), headers: [("cwa-fake", "0"), ("cwa-authorization", tan)], contentType: "application/x-protobuf")
    }

    static func proteGOUpload(_ stack: RealVerificationStack, token: String, firstByte: UInt8) async throws -> TestResponse {
        let keys = (0..<2).map { ProteGOPayloads.key(firstByte + UInt8($0), now: stack.clock.now(), daysAgo: $0 + 1) }
        return try await stack.submission.postJSON(ProteGOPayloads.uploadPath, ProteGOPayloads.iOS(keys: keys, token: token))
    }

    static func claimKey(_ stack: RealVerificationStack, code: String) async throws -> TestResponse {
        let app = try CryptoBox.keyPair(using: SystemRandomSource())
        return try await stack.submission.postRaw("/claim-key", CovidShieldWire.claimRequest(code: code, appKey: app.publicKey), contentType: "application/x-protobuf")
    }

    /// Status, content type and body: what tells one answer from another on the wire (sizes follow from the body).
    static func same(_ a: TestResponse, _ b: TestResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.header("content-type") == b.header("content-type")
    }

    /// The keys' origins in the one store, sorted.
    static func origins(_ stack: RealVerificationStack) async throws -> [String] {
        try await stack.store.all().map(\.key.originCountry).sorted()
    }

    @Test(arguments: TestDatabase.all)
    func aProteGOTokenIsAnUnknownTANToTheCoronaWarnApp(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let token = try await Self.proteGOToken(stack)
            let foreign = try await Self.cwaUpload(stack, tan: token, firstByte: 1)
            let unknown = try await Self.cwaUpload(stack, tan: Codes.uuidV4(using: SystemRandomSource()), firstByte: 1)
            #expect(foreign.status == 403 && foreign.json["error"] as? String == "invalid_tan")
            #expect(Self.same(foreign, unknown), "\(foreign.text) vs \(unknown.text)")
            #expect(try await stack.store.count() == 0)
            // Given back unspent, for its own family: stored as ProteGO's keys only.
            let home = try await Self.proteGOUpload(stack, token: token, firstByte: 1)
            #expect(home.status == 200, "\(home.text)")
            #expect(try await Self.origins(stack) == ["PL", "PL"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func aCoronaWarnAppTANIsAnUnknownTokenToProteGO(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let tans = try await stack.positiveTANs(1)
            let teleTANsTAN = try await stack.tan(for: ["key": try await Self.teleTAN(stack), "keyType": "TELETAN"])
            let unknown = try await Self.proteGOUpload(stack, token: Codes.uuidV4(using: SystemRandomSource()), firstByte: 1)
            unknown.expectCallableError(401, "UNAUTHENTICATED", message: "")
            for tan in [tans[0], teleTANsTAN] {
                let foreign = try await Self.proteGOUpload(stack, token: tan, firstByte: 1)
                #expect(Self.same(foreign, unknown), "\(foreign.text) vs \(unknown.text)")
            }
            #expect(try await stack.store.count() == 0)
            // Both still upload in their own family, as DE.
            #expect(try await Self.cwaUpload(stack, tan: tans[0], firstByte: 10).status == 200)
            #expect(try await Self.cwaUpload(stack, tan: teleTANsTAN, firstByte: 20).status == 200)
            #expect(try await Self.origins(stack) == ["DE", "DE", "DE", "DE"])
        }
    }

    /// The codes people type: each family's refuses the others' as it refuses an unknown code, and spends nothing.
    @Test(arguments: TestDatabase.all)
    func oneTimeCodesOfAnotherFamilyAreUnknownCodes(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let covidShieldCode = try await Self.code(stack, kind: "COVIDSHIELD")
            let pin = try await Self.code(stack, kind: "PROTEGO")
            let teleTAN = try await Self.teleTAN(stack)
            // ProteGO's getAccessToken: a CovidShield code, a teleTAN, a CWA TAN are wrong PINs.
            let unknownPIN = try await Self.accessToken(stack, pin: "ZZ99ZZ")
            unknownPIN.expectCallableError(404, "NOT_FOUND", message: "Invalid code")
            for foreign in [covidShieldCode, teleTAN, try await stack.positiveTANs(1)[0]] {
                #expect(Self.same(try await Self.accessToken(stack, pin: foreign), unknownPIN), "\(foreign)")
            }
            // CovidShield's claim-key: a PIN and a teleTAN are wrong codes.
            let unknownCode = try await Self.claimKey(stack, code: "00000000")
            #expect(unknownCode.status == 401 && unknownCode.body == [0x08, 0x02])
            for foreign in [pin, teleTAN] {
                #expect(Self.same(try await Self.claimKey(stack, code: foreign), unknownCode), "\(foreign)")
            }
            // The Corona-Warn-App's registration: a PIN and a CovidShield code are no teleTANs.
            let unknownTeleTAN = try await stack.verification.postJSON(
                "/version/v1/registrationToken", ["key": "FE9A5MAK6C", "keyType": "TELETAN"], headers: [("cwa-fake", "0")])
            for foreign in [pin, covidShieldCode] {
                let answer = try await stack.verification.postJSON(
                    "/version/v1/registrationToken", ["key": foreign, "keyType": "TELETAN"], headers: [("cwa-fake", "0")])
                #expect(answer.status == unknownTeleTAN.status && answer.status == 400, "\(answer.text)")
            }
            // Each still works at home.
            #expect(try await Self.claimKey(stack, code: covidShieldCode).status == 200)
            #expect(try await Self.accessToken(stack, pin: pin).status == 200)
            #expect(try await stack.tan(for: ["key": teleTAN, "keyType": "TELETAN"]).count == 36)
        }
    }

    // MARK: Against the stand-in: the foreign TAN's cost

    /// A foreign TAN makes the same requests to verification as an unknown one (a reservation, then a release), so
    /// neither its answer nor its timing sets it apart; its reservation is given back.
    @Test(arguments: TestDatabase.all)
    func aForeignTANAsksVerificationWhatAnUnknownOneAsks(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = Payloads.bytes([Payloads.key(1, today: harness.today)])
            let unknown = try await harness.submit(body, tan: Codes.uuidV4(using: SystemRandomSource()))
            let afterUnknown = (harness.verification.callCount("reserve"), harness.verification.callCount("release"), harness.verification.callCount("confirm"))
            #expect(afterUnknown == (1, 1, 0))
            let proteGOTAN = harness.verification.issue(origin: #""source":"PROTEGO","region":"PL""#)
            let foreign = try await harness.submit(body, tan: proteGOTAN)
            #expect(harness.verification.callCount("reserve") == 2 && harness.verification.callCount("release") == 2)
            #expect(harness.verification.callCount("confirm") == 0)
            #expect(foreign.status == unknown.status && foreign.body == unknown.body)
            #expect(foreign.header("content-length") == unknown.header("content-length"))
            #expect(!harness.verification.isReserved(proteGOTAN) && !harness.verification.isSpent(proteGOTAN))
            #expect(try await harness.storedCount() == 0)
            #expect(try await harness.store.pendingCount() == 0)
        }
    }

    /// A ProteGO token minted from a PIN of another region than the deployment's (`PROTEGO_REGION`) stores nothing.
    @Test(arguments: TestDatabase.all)
    func aProteGOTokenOfAnotherRegionIsAnUnknownToken(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let keys = [ProteGOPayloads.key(1, now: harness.clock.now())]
            let unknown = try await harness.client.postJSON(ProteGOPayloads.uploadPath, ProteGOPayloads.iOS(keys: keys, token: Codes.uuidV4(using: SystemRandomSource())))
            for origin in [#""source":"PROTEGO","region":"ON""#, #""source":"PROTEGO""#, #""source":"GUID""#, #""source":"TELETAN""#] {
                let tan = harness.verification.issue(origin: origin)
                let foreign = try await harness.client.postJSON(ProteGOPayloads.uploadPath, ProteGOPayloads.iOS(keys: keys, token: tan))
                #expect(foreign.status == unknown.status && foreign.body == unknown.body, "\(origin)")
                #expect(!harness.verification.isReserved(tan) && !harness.verification.isSpent(tan), "\(origin)")
            }
            #expect(try await harness.storedCount() == 0)
            let home = harness.verification.issue(origin: #""source":"PROTEGO","region":"PL""#)
            #expect(try await harness.client.postJSON(ProteGOPayloads.uploadPath, ProteGOPayloads.iOS(keys: keys, token: home)).status == 200)
        }
    }

    @Test func eachLaneAcceptsItsOwnFamilysTANsOnly() {
        let guid = TANOrigin(source: .guid), teleTAN = TANOrigin(source: .teleTAN, isEvent: true)
        let polish = TANOrigin(source: .proteGO, region: "PL"), other = TANOrigin(source: .proteGO, region: "ON")
        #expect(UploadLane.coronaWarnApp.accepts(guid) && UploadLane.coronaWarnApp.accepts(teleTAN))
        #expect(!UploadLane.coronaWarnApp.accepts(polish))
        #expect(UploadLane.proteGO(region: "PL").accepts(polish))
        for origin in [guid, teleTAN, other, TANOrigin(source: .proteGO)] { #expect(!UploadLane.proteGO(region: "PL").accepts(origin)) }
    }
}
