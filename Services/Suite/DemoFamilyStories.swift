import ExposureCore
import ExposureNaCl
import ExposureProtocol
import Foundation
import SubmissionDomain
import SwiftProtobuf

/// The stories of the other app families on the same backend: an officer issues each family's code in the portal,
/// and an app of that family, unchanged, claims, uploads and finds its keys published.
extension DemoStory {
    /// The CovidShield and ProteGO stories, with the suite's officer signed into the portal (the suite enables both
    /// code kinds; services deployed elsewhere may not, so the demo runs these against a suite only), then LEMON's.
    func runFamilyStories() async throws {
        guard let user = credentials["OFFICER_USER"], let password = credentials["OFFICER_PASSWORD"] else {
            throw DemoFailure("no OFFICER_USER and OFFICER_PASSWORD in the credentials file")
        }
        let portal = try await DemoPortalSession.signIn(user, password: password, portal: endpoints.portal, http: http).0
        try await runCovidShieldStory(portal: portal)
        try await runProteGOStory(portal: portal)
        if let lemon { try await runLemonStory(lemon) }
    }

    func runCovidShieldStory(portal: DemoPortalSession) async throws {
        print("\n== A CovidShield app (Canada's first COVID Alert), unchanged, on the same backend")
        let code = try await portal.issueCode(kind: "COVIDSHIELD")
        print("1. The officer issues a CovidShield one-time code in the portal: \(code) (dead in 10 minutes unless claimed)")

        let app = try CryptoBox.keyPair(using: random)
        var claim = Covidshield_KeyClaimRequest()
        claim.oneTimeCode = code
        claim.appPublicKey = Data(app.publicKey)
        let claimed = try await protobuf(endpoints.submission + "/claim-key", try claim.serializedBytes())
        let claimAnswer = try Covidshield_KeyClaimResponse(serializedBytes: claimed.body)
        try expectDemo(claimed.status == 200 && claimAnswer.serverPublicKey.count == 32, "claiming a key was answered \(claimed.status)")
        print("2. The app claims a key with it and its X25519 public key: \(claimed.status), the server's public key (its private half is stored sealed)")

        var upload = Covidshield_Upload()
        upload.timestamp = Google_Protobuf_Timestamp(date: Date())
        let keys = dailyKeys(count: 14)
        upload.keys = keys.map { key in
            var message = Covidshield_Key()
            message.keyData = Data(key.data)
            message.rollingStartNumber = UInt32(key.rollingStart)
            message.rollingPeriod = 144
            message.transmissionRiskLevel = 4
            return message
        }
        let nonce = random.bytes(count: 24)
        var sealed = Covidshield_EncryptedUploadRequest()
        sealed.serverPublicKey = claimAnswer.serverPublicKey
        sealed.appPublicKey = Data(app.publicKey)
        sealed.nonce = Data(nonce)
        sealed.payload = Data(try CryptoBox.seal(try upload.serializedBytes(), nonce: nonce, to: Array(claimAnswer.serverPublicKey), from: app.secretKey))
        let uploaded = try await protobuf(endpoints.submission + "/upload", try sealed.serializedBytes())
        let uploadAnswer = try Covidshield_EncryptedUploadResponse(serializedBytes: uploaded.body)
        try expectDemo(uploaded.status == 200 && uploadAnswer.error == .none, "the sealed upload was answered \(uploaded.status), \(uploadAnswer.error)")
        print("3. It uploads its 14 keys in a NaCl box (\(sealed.payload.count) bytes): \(uploaded.status), error NONE")

        let hour = Int64(Date().timeIntervalSince1970) / 3600
        print("   (its hour's stream, /retrieve-hour/…/\(hour % 24)/<hmac>, opens when the hour is over: the current hour is never served)")
        try await findInExport(keys.map(\.data), step: 4)
    }

    func runProteGOStory(portal: DemoPortalSession) async throws {
        print("\n== A ProteGO Safe app (Poland), unchanged, on the same backend")
        let pin = try await portal.issueCode(kind: "PROTEGO")
        print("1. The officer issues a ProteGO PIN in the portal: \(pin) (dead after 30 minutes)")

        let exchanged = try await http.postJSON(endpoints.submission + "/getAccessToken", ["data": ["code": pin]])
        guard exchanged.status == 200, let token = (exchanged.json["result"] as? [String: Any])?["accessToken"] as? String else {
            throw DemoFailure("getAccessToken was answered \(exchanged.status): \(exchanged.text)")
        }
        print("2. The app exchanges it for an access token (opaque, spent only by a successful upload): \(exchanged.status)")
        let again = try await http.postJSON(endpoints.submission + "/getAccessToken", ["data": ["code": pin]])
        try expectDemo(again.status == 404, "the PIN's second exchange was answered \(again.status)")
        print("   (the PIN works once: a second exchange is answered \(again.status) NOT_FOUND)")

        func upload(_ keys: [(data: [UInt8], rollingStart: Int)]) async throws -> DemoClient.Response {
            let data: [String: Any] = [
                "temporaryExposureKeys": keys.map {
                    ["key": Data($0.data).base64EncodedString(), "rollingStartNumber": $0.rollingStart, "rollingPeriod": 144, "transmissionRisk": 8]
                },
                "regions": ["PL"], "platform": "android", "appPackageName": "pl.gov.mc.protegosafe", "verificationPayload": token,
            ]
            return try await http.postJSON(endpoints.submission + "/uploadDiagnosisKeys", ["data": data])
        }
        let keys = dailyKeys(count: 14)
        let uploaded = try await upload(keys)
        try expectDemo(uploaded.status == 200, "the upload was answered \(uploaded.status): \(uploaded.text)")
        print("3. It uploads its 14 keys as Google's server expects them: \(uploaded.status) \(uploaded.text)")
        let reused = try await upload(dailyKeys(count: 14))
        try expectDemo(reused.status == 401, "other keys with the spent token were answered \(reused.status)")
        print("   (the token is spent: other keys with it are answered \(reused.status) UNAUTHENTICATED; the same keys again are a retry)")

        let wanted = Set(keys.map(\.data))
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let index = try await http.send(.GET, endpoints.submission + "/protego/PL/index.txt")
            if index.status == 200 {
                for name in index.text.split(separator: "\n").reversed() {
                    let file = try await http.send(.GET, endpoints.submission + "/protego/PL" + name)
                    guard file.status == 200, let (_, export, _) = try? ExportArchive.read(Data(file.body)) else { continue }
                    let found = wanted.intersection(export.keys.map { Array($0.keyData) }).count
                    if found > 0 {
                        print("4. The distribution run lists \(name.dropFirst()) in index.txt: a signed GAEN zip of region \(export.region) holding \(found) of its keys")
                        return
                    }
                }
            }
            try await Task.sleep(for: .seconds(2))
        }
        throw DemoFailure("the uploaded keys did not appear in a file listed by /protego/PL/index.txt within 60 s")
    }

    /// `count` random keys, one for each day before today, as an app keeps them: their bytes and start interval.
    private func dailyKeys(count: Int) -> [(data: [UInt8], rollingStart: Int)] {
        let today = Int(Date().timeIntervalSince1970) / 86400
        return (0..<count).map { (random.bytes(count: 16), (today - 1 - $0) * 144) }
    }

    private func protobuf(_ url: String, _ body: [UInt8]) async throws -> DemoClient.Response {
        try await http.send(.POST, url, headers: [("Content-Type", "application/x-protobuf")], body: body)
    }
}
