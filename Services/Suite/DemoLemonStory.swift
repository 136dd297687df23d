import _CryptoExtras
import Foundation
import SubmissionDomain

/// The LEMON tracing app's story on the submission service's listener: a device with its own key pair, a JWT, the
/// symptom list in German, a survey, and the health authority's counts, in which the one answer does not show alone.
extension DemoStory {
    func runLemonStory(_ lemon: DemoLemonAccess) async throws {
        print("\n== A LEMON tracing app registers its device, reads symptoms in German and donates a survey")
        let device = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let appId = UUID().uuidString
        let registered = try await http.postJSON(endpoints.submission + "/api/v1/devices", try lemonDeviceBody(
            appId: appId, signer: device, lemon: lemon,
            registration: ["publicKey": device.publicKey.derRepresentation.base64EncodedString(), "operatingSystem": "Android", "language": "de"]
        ))
        try expectDemo(registered.status == 201, "registering the device was answered \(registered.status): \(registered.text)")
        try expectDemo(try verifiesServerSignature(registered, lemon), "the answer's signature does not verify with the server's signing key")
        print("1. The app registers its AppId with a fresh RSA-2048 key pair, signing its seed and the time: \(registered.status);"
            + " the server checked the signature, keeps the AppId only as an HMAC, and signed its answer (valid with the key built into the app)")

        let forged = try await http.postJSON(
            endpoints.submission + "/api/v1/devices",
            try lemonDeviceBody(appId: appId, signer: try _RSA.Signing.PrivateKey(keySize: .bits2048), lemon: lemon)
        )
        try expectDemo(forged.status == 401, "an authentication signed with another key was answered \(forged.status)")
        print("   (the same AppId signed with another key is refused: \(forged.status); three such failures lock it for 10 minutes)")

        let authenticated = try await http.postJSON(endpoints.submission + "/api/v1/devices", try lemonDeviceBody(appId: appId, signer: device, lemon: lemon))
        let session = authenticated.json["data"] as? [String: Any] ?? [:]
        guard authenticated.status == 201, let token = session["accessToken"] as? String, let expiry = session["accessTokenExpiry"] as? String else {
            throw DemoFailure("authenticating the device was answered \(authenticated.status): \(authenticated.text)")
        }
        try expectDemo(try verifiesServerSignature(authenticated, lemon), "the authentication's answer is not signed by the server")
        print("2. It authenticates with a new seed, signed with its key: \(authenticated.status), a JWT (ES256) valid until \(expiry)")

        let bearer = [("Authorization", "Bearer \(token)")]
        let symptoms = try await http.send(.GET, endpoints.submission + "/api/v1/symptoms?language=de", headers: bearer)
        let list = (symptoms.json["data"] as? [[String: Any]] ?? []).compactMap { item in
            (item["key"] as? String).flatMap { key in (item["value"] as? String).map { (key: key, value: $0) } }
        }
        try expectDemo(symptoms.status == 200 && list.count >= 2, "the German symptoms were answered \(symptoms.status): \(symptoms.text)")
        print("3. It reads the symptoms in German with the JWT: \(symptoms.status), \(list.count) symptoms (\(list.prefix(3).map { $0.value }.joined(separator: ", ")), …)")

        let yesterday = LemonSurveyValidator.day(of: Date().addingTimeInterval(-86_400))
        let chosen = list.prefix(2).map { $0.key }
        let survey: [String: Any] = [
            "Status": "Positive", "PositiveTestDate": "\(yesterday) 09:30:00", "IsSymptomatic": true, "Symptoms": chosen,
            "SymptomsFrom": "\(yesterday) 08:00:00", "Country": "DE", "Language": "DE", "Age": 42,
        ]
        let donated = try await http.postJSON(endpoints.submission + "/api/v1/submission/covid", survey, headers: bearer)
        try expectDemo(donated.status == 201, "the survey was answered \(donated.status): \(donated.text)")
        print("4. It donates a survey (Positive, \(list.prefix(2).map { $0.value }.joined(separator: " and ")), DE, 42): \(donated.status);"
            + " stored under a random id, apart from its device, every date to the day")

        let today = LemonSurveyValidator.day(of: Date())
        let csv = try await lemon.aggregates(today)
        let lines = csv.split(separator: "\n").filter { $0.hasPrefix(today) }
        let answers = lines.first { $0.hasPrefix("\(today),answers,") }
        try expectDemo(answers != nil, "the aggregates hold no line for today: \(csv)")
        let k = lemon.minimumCount
        let published = lines.compactMap { Int($0.split(separator: ",", omittingEmptySubsequences: false).last ?? "") }
        try expectDemo(!published.contains { $0 < k }, "the aggregates print a count below \(k): \(csv)")
        print("5. The health authority's aggregates (submission-service lemon-aggregates) count today's answers by status and symptom:")
        for line in lines.prefix(8) { print("     \(line)") }
        if lines.count > 8 { print("     … \(lines.count - 8) more") }
        print("   (small counts suppressed: a count below k=\(k) is printed as <\(k), and a count that would let one be worked out"
            + " from the day's total as x, so one answer never shows)")
    }

    /// A `POST /api/v1/devices` body: the AppId, a fresh seed and pre-master secret (encrypted for the server's key),
    /// and `<seed>:<unix seconds>` signed by `signer`; with `registration`'s fields it registers, without them it
    /// authenticates.
    private func lemonDeviceBody(
        appId: String, signer: _RSA.Signing.PrivateKey, lemon: DemoLemonAccess, registration: [String: Any] = [:]
    ) throws -> [String: Any] {
        let seed = Data(random.bytes(count: LemonDeviceRules.seedBytes)).base64EncodedString()
        let plain = "\(seed):\(Int64(Date().timeIntervalSince1970))"
        let signature = try signer.signature(for: Data(plain.utf8), padding: .insecurePKCS1v1_5)
        let secret = try lemon.serverKeys.encryptionPublicKey.encrypt(
            Data(random.bytes(count: LemonDeviceRules.preMasterSecretBytes)), padding: .PKCS1_OAEP_SHA256
        )
        return registration.merging([
            "appId": appId, "seed": seed, "preMasterSecret": secret.base64EncodedString(),
            "signature": ["plainTextData": plain, "signedData": signature.rawRepresentation.base64EncodedString()],
        ]) { $1 }
    }

    /// Whether the answer's signature (`Signature` after a registration, `signature` after an authentication) is the
    /// server's over its `plainTextData`.
    private func verifiesServerSignature(_ answer: DemoClient.Response, _ lemon: DemoLemonAccess) throws -> Bool {
        let data = answer.json["data"] as? [String: Any]
        let signature = (data?["Signature"] ?? data?["signature"]) as? [String: Any] ?? [:]
        guard let plain = signature["plainTextData"] as? String, let signed = (signature["signedData"] as? String).flatMap({ Data(base64Encoded: $0) }) else {
            return false
        }
        return lemon.serverKeys.signing.publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signed), for: Data(plain.utf8), padding: .insecurePKCS1v1_5
        )
    }
}
