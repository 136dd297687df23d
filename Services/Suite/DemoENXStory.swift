import Crypto
import ExposureCore
import ExposureRules
import Foundation

/// Exposure Notifications Express, the app built into iOS and Android, against the same verification service: a
/// health authority's system issues a code, the phone verifies it and gets a certificate for the HMAC of its keys,
/// and a key server checks that certificate offline with the authority's published keys.
extension DemoStory {
    func runENXStory() async throws {
        print("\n== Exposure Notifications Express (built into iOS and Android), on the same verification service")
        guard let admin = credentials["ENX_ADMIN_KEY"], let device = credentials["ENX_DEVICE_KEY"] else {
            // A suite running since before this version: its next start makes the keys.
            print("(skipped: the running suite's credentials hold no ENX keys; restart it to make them)")
            return
        }
        let today = Int64(Date().timeIntervalSince1970) / 86400
        let symptomDate = UTCDay(number: today - 2).description
        let issued = try await http.postJSON(
            endpoints.verificationIssuer + "/api/issue", ["testType": "confirmed", "symptomDate": symptomDate], headers: [("X-API-Key", admin)]
        )
        guard issued.status == 200, let code = issued.json["code"] as? String, let uuid = issued.json["uuid"] as? String else {
            throw DemoFailure("issuing an ENX code was answered \(issued.status): \(issued.text)")
        }
        print("1. The health authority's lab system issues a code with its admin key: \(code) (confirmed, symptoms since \(symptomDate); 15 minutes)")

        let verified = try await http.postJSON(endpoints.verification + "/api/verify", ["code": code, "accept": ["confirmed"]], headers: [("X-API-Key", device)])
        guard verified.status == 200, let token = verified.json["token"] as? String else {
            throw DemoFailure("verifying the ENX code was answered \(verified.status): \(verified.text)")
        }
        print("2. ENX on the patient's phone verifies it with the authority's device key: \(verified.status), a verification token (ES256 JWT, 24 hours)")
        let again = try await http.postJSON(endpoints.verification + "/api/verify", ["code": code], headers: [("X-API-Key", device)])
        try expectDemo(again.status == 400 && again.json["errorCode"] as? String == "code_invalid", "a second verification was answered \(again.status)")
        print("   the same code again: \(again.status) code_invalid (a code is claimed once)")

        let rollingStart = Int64(today - 1) * 144
        let keys = (0..<3).map { day in
            ENXExposureKeyHMAC.Key(key: Data(random.bytes(count: 16)).base64EncodedString(), rollingStartNumber: rollingStart - Int64(day) * 144, rollingPeriod: 144)
        }
        let hmacKey = Data(random.bytes(count: 32))
        let tekmac = ENXExposureKeyHMAC.mac(keys, hmacKey: hmacKey).base64EncodedString()
        let certified = try await http.postJSON(endpoints.verification + "/api/certificate", ["token": token, "ekeyhmac": tekmac], headers: [("X-API-Key", device)])
        guard certified.status == 200, let text = certified.json["certificate"] as? String, let certificate = ENXCertificate(text) else {
            throw DemoFailure("the certificate was answered \(certified.status): \(certified.text)")
        }
        print("3. It sends the HMAC of its \(keys.count) keys (under a random key of its own) with the token: \(certified.status), a certificate signed by \(certificate.keyID)")

        let jwks = try await http.send(.GET, endpoints.verification + "/jwks/\(AuthorityID.default)")
        let published = (try? JSONSerialization.jsonObject(with: Data(jwks.body))) as? [[String: Any]] ?? []
        guard let jwk = published.first(where: { $0["kid"] as? String == certificate.keyID }),
              let x = (jwk["x"] as? String).flatMap(Data.init(base64URL:)), let y = (jwk["y"] as? String).flatMap(Data.init(base64URL:)),
              let publicKey = try? P256.Signing.PublicKey(rawRepresentation: x + y)
        else { throw DemoFailure("the authority's published keys hold no \(certificate.keyID)") }
        let claims = try certificate.verify(audience: "exposure-notifications-server", key: publicKey, now: Int64(Date().timeIntervalSince1970))
        try expectDemo(
            ENXExposureKeyHMAC.matches(keys, hmacKey: hmacKey, tekmac: Data(base64Encoded: claims.tekmac) ?? Data()),
            "the certificate's tekmac does not bind the phone's keys"
        )
        print("4. A key server checks it offline with the authority's keys from /jwks/\(AuthorityID.default): issuer \(claims.iss), report type \(claims.reportType),")
        print("   symptom onset interval \(claims.symptomOnsetInterval.map(String.init) ?? "none"), and the HMAC recomputed over the keys matches")
        let spent = try await http.postJSON(endpoints.verification + "/api/certificate", ["token": token, "ekeyhmac": tekmac], headers: [("X-API-Key", device)])
        try expectDemo(spent.status == 400 && spent.json["errorCode"] as? String == "token_expired", "a second certificate was answered \(spent.status)")
        print("   the token again: \(spent.status) token_expired (a token buys one certificate)")

        let status = try await http.postJSON(endpoints.verificationIssuer + "/api/checkcodestatus", ["uuid": uuid], headers: [("X-API-Key", admin)])
        try expectDemo(status.status == 200 && status.json["claimed"] as? Bool == true, "the code's status was answered \(status.status): \(status.text)")
        print("5. The lab system asks after its code by its uuid: claimed")
        print("   (the key server's /v1/publish, where ENX sends the keys with the certificate, is not built yet)")
    }
}
