import ExposureTestSupport
import Foundation
import Testing

/// Bodies the ProteGO Safe apps send (design sheet protego.md), and what the tests check in the answers.
enum ProteGOPayloads {
    static let accessTokenPath = "/getAccessToken"
    static let uploadPath = "/uploadDiagnosisKeys"

    /// The example deviceVerificationPayload of the sheet (iOS DeviceCheck JSON, base64).
    static let iOSAttestation = "eyJkZXZpY2VUb2tlbiI6IkFnQUFBQT09IiwidHJhbnNhY3Rpb25JZCI6ImI1YThkMGJjMzc5N2QzMTYwNzdjOTRiY2Y2NGNjMDZmYTk5MTE1MWY0ZjgwMmVmZjk3ZWJmOWEzZmE1ZmMxMGEiLCJ0aW1lc3RhbXAiOjE1OTEwMTY0NjAwMDB9"
    /// A SafetyNet JWS as Android sends it (three base64url parts; never verified, so its content does not matter).
    static let androidAttestation = "eyJhbGciOiJSUzI1NiIsIng1YyI6WyJNSUlGIl19.eyJub25jZSI6IkFBQUEiLCJjdHNQcm9maWxlTWF0Y2giOnRydWV9.c2lnbmF0dXJl"

    /// One key: 16 bytes of `byte`, starting `daysAgo` days before the day of `now`, a whole day long.
    static func key(_ byte: UInt8, now: Date, daysAgo: Int = 1, period: Int = 144, risk: Int = 8) -> [String: Any] {
        let today = Int(now.timeIntervalSince1970) / 600 / 144 * 144
        return [
            "key": Data(repeating: byte, count: 16).base64EncodedString(),
            "rollingStartNumber": today - daysAgo * 144,
            "rollingPeriod": period,
            "transmissionRisk": risk,
        ]
    }

    /// `{"data": URP}` as the iOS app sends it.
    static func iOS(keys: [[String: Any]], token: String, attestation: String? = iOSAttestation) -> [String: Any] {
        var data: [String: Any] = [
            "temporaryExposureKeys": keys, "regions": ["PL"], "platform": "ios", "appPackageName": "pl.gov.mc.protegosafe",
            "verificationPayload": token,
        ]
        if let attestation { data["deviceVerificationPayload"] = attestation }
        return ["data": data]
    }

    /// `{"data": URP}` as the Android app sends it: 14 keys, one a day, and a SafetyNet attestation.
    static func android(now: Date, token: String, firstByte: UInt8 = 100) -> [String: Any] {
        let keys = (0..<14).map { key(firstByte + UInt8($0), now: now, daysAgo: $0 + 1) }
        return [
            "data": [
                "temporaryExposureKeys": keys, "regions": ["PL"], "platform": "android", "appPackageName": "pl.gov.mc.protegosafe",
                "verificationPayload": token, "deviceVerificationPayload": androidAttestation,
            ] as [String: Any],
        ]
    }
}

extension TestResponse {
    /// Expects the callable error envelope `{"error":{"message":…,"status":…}}` with this HTTP status.
    func expectCallableError(_ status: Int, _ callableStatus: String, message: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, "\(text)", sourceLocation: sourceLocation)
        #expect(header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        let error = json["error"] as? [String: Any]
        #expect(error?["status"] as? String == callableStatus, "\(text)", sourceLocation: sourceLocation)
        #expect(error?["message"] is String, sourceLocation: sourceLocation)
        if let message { #expect(error?["message"] as? String == message, sourceLocation: sourceLocation) }
        #expect(json.count == 1, "\(text)", sourceLocation: sourceLocation)
    }
}
