import Crypto
import ExposureRules
import Foundation
import Testing

/// Issue #61: the rules of the ENX family that the verification and key servers share, checked against the test
/// vectors of Google's protocol in docs/enx.md (shared/design/enx.md, sections 3.1 and 3.3).
@Suite struct ENXRulesTests {
    static let hmacKey = Data(base64Encoded: "ABEiM0RVZneImaq7zN3u/wARIjNEVWZ3iJmqu8zd7v8=")!

    /// Vector A's keys: bytes 00..0f, 10..1f and sixteen 0xff, with the transmission risk `risk`.
    static func vectorKeys(risk: Int64) -> [ENXExposureKeyHMAC.Key] {
        [
            .init(key: "AAECAwQFBgcICQoLDA0ODw==", rollingStartNumber: 2_676_672, rollingPeriod: 144, transmissionRisk: risk),
            .init(key: "EBESExQVFhcYGRobHB0eHw==", rollingStartNumber: 2_676_528, rollingPeriod: 144, transmissionRisk: risk),
            .init(key: "/////////////////////w==", rollingStartNumber: 2_676_816, rollingPeriod: 60, transmissionRisk: risk),
        ]
    }

    @Test func vectorAMACsTheKeysSortedByTheirTextWithTransmissionRisks() {
        let keys = Self.vectorKeys(risk: 2)
        // 0xff… encodes to "////…", which sorts first in byte order although its bytes are the largest.
        #expect(ENXExposureKeyHMAC.cleartext(keys) == "/////////////////////w==.2676816.60.2,AAECAwQFBgcICQoLDA0ODw==.2676672.144.2,EBESExQVFhcYGRobHB0eHw==.2676528.144.2")
        let mac = ENXExposureKeyHMAC.mac(keys, hmacKey: Self.hmacKey)
        #expect(mac.base64EncodedString() == "2lxvM/UE5KsqGv6Ohp+EUqQilV0Qt93qrHfzTCmYu7Q=")
        #expect(ENXExposureKeyHMAC.matches(keys.reversed(), hmacKey: Self.hmacKey, tekmac: mac))
        // With a risk that is not 0, the form without risks is not accepted.
        let text = Data(ENXExposureKeyHMAC.cleartext(keys, withTransmissionRisk: false).utf8)
        let short = Data(HMAC<SHA256>.authenticationCode(for: text, using: SymmetricKey(data: Self.hmacKey)))
        #expect(!ENXExposureKeyHMAC.matches(keys, hmacKey: Self.hmacKey, tekmac: short))
    }

    @Test func vectorBAcceptsBothFormsWhenEveryRiskIsZero() throws {
        let keys = Self.vectorKeys(risk: 0)
        let full = ENXExposureKeyHMAC.mac(keys, hmacKey: Self.hmacKey)
        #expect(full.base64EncodedString() == "1ysUo1+81ms7O4obnNDSmfPpNw4j8c5FPgL5nsGKZEw=")
        #expect(ENXExposureKeyHMAC.cleartext(keys, withTransmissionRisk: false) == "/////////////////////w==.2676816.60,AAECAwQFBgcICQoLDA0ODw==.2676672.144,EBESExQVFhcYGRobHB0eHw==.2676528.144")
        let short = try #require(Data(base64Encoded: "WLSD6KrAieJvXltnvtEDyznouyvsVhxbpnrChEidPVc="))
        #expect(ENXExposureKeyHMAC.matches(keys, hmacKey: Self.hmacKey, tekmac: full))
        #expect(ENXExposureKeyHMAC.matches(keys, hmacKey: Self.hmacKey, tekmac: short))
    }

    /// What the key server must refuse: another key, a key more or less, a changed period, another HMAC key.
    @Test func theMACBindsExactlyTheseKeys() {
        let keys = Self.vectorKeys(risk: 2)
        let mac = ENXExposureKeyHMAC.mac(keys, hmacKey: Self.hmacKey)
        let changedPeriod = [ENXExposureKeyHMAC.Key(key: keys[2].key, rollingStartNumber: 2_676_816, rollingPeriod: 144, transmissionRisk: 2)] + keys[0..<2]
        let extra = keys + [.init(key: "ICEiIyQlJicoKSorLC0uLw==", rollingStartNumber: 2_676_384, rollingPeriod: 144, transmissionRisk: 2)]
        // The same bytes spelt in the URL alphabet are another text, so another MAC.
        let respelt = [ENXExposureKeyHMAC.Key(key: "_____________________w", rollingStartNumber: 2_676_816, rollingPeriod: 60, transmissionRisk: 2)] + keys[0..<2]
        for other in [Array(keys.dropLast()), extra, changedPeriod, respelt, []] {
            #expect(!ENXExposureKeyHMAC.matches(other, hmacKey: Self.hmacKey, tekmac: mac))
        }
        #expect(!ENXExposureKeyHMAC.matches(keys, hmacKey: Data(repeating: 1, count: 32), tekmac: mac))
        #expect(!ENXExposureKeyHMAC.matches(keys, hmacKey: Data(), tekmac: mac))
    }

    /// Vector C: the sheet's certificate, made with a key derived from a fixed text, verifies here with its public key.
    static let vectorKey = try! P256.Signing.PrivateKey(rawRepresentation: Data(SHA256.hash(data: Data("enx-fact-sheet-test-key".utf8))))
    static let vectorToken = "eyJhbGciOiJFUzI1NiIsImtpZCI6InIxdjEiLCJ0eXAiOiJKV1QifQ.eyJhdWQiOiJleHBvc3VyZS1ub3RpZmljYXRpb25zLXNlcnZlciIsImV4cCI6MTYwNjA0NDkwMCwiaWF0IjoxNjA2MDQzOTk1LCJpc3MiOiJkaWFnbm9zaXMtdmVyaWZpY2F0aW9uLWV4YW1wbGUiLCJuYmYiOjE2MDYwNDM5OTUsInJlcG9ydFR5cGUiOiJjb25maXJtZWQiLCJzeW1wdG9tT25zZXRJbnRlcnZhbCI6MjY3NjM4NCwidGVrbWFjIjoiMmx4dk0vVUU1S3NxR3Y2T2hwK0VVcVFpbFYwUXQ5M3FySGZ6VENtWXU3UT0ifQ.504MC2PLEqY3VZnFi4cVXfRWXrvT20lsHyki3J6-ZDDKZA3mvDTciRRJ8RlvLOsIdKcr2S2KiMwBuWJg0UmG-g"
    static let audience = "exposure-notifications-server"

    @Test func vectorCVerifiesWithinItsLifetimeAndNotOutside() throws {
        #expect(Self.vectorKey.publicKey.derRepresentation.base64EncodedString() == "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEmauf8e/A4HG8Zge068UIeAJlCfcWXzjIAru5uOLFTuKgaUp4m/QaPtT33+rr5VLrKJbeDiOIyqjB8ptfhRBV2Q==")
        let certificate = try #require(ENXCertificate(Self.vectorToken))
        #expect(certificate.keyID == "r1v1")
        let expected = ENXCertificateClaims(
            aud: Self.audience, exp: 1_606_044_900, iat: 1_606_043_995, iss: "diagnosis-verification-example", nbf: 1_606_043_995,
            reportType: "confirmed", symptomOnsetInterval: 2_676_384, tekmac: "2lxvM/UE5KsqGv6Ohp+EUqQilV0Qt93qrHfzTCmYu7Q="
        )
        for now: Int64 in [1_606_043_995, 1_606_044_000, 1_606_044_900] {
            #expect(try certificate.verify(audience: Self.audience, key: Self.vectorKey.publicKey, now: now) == expected)
        }
        #expect(throws: ENXCertificate.Problem.expired) { try certificate.verify(audience: Self.audience, key: Self.vectorKey.publicKey, now: 1_606_044_901) }
        #expect(throws: ENXCertificate.Problem.notYetValid) { try certificate.verify(audience: Self.audience, key: Self.vectorKey.publicKey, now: 1_606_043_994) }
        #expect(throws: ENXCertificate.Problem.wrongAudience) { try certificate.verify(audience: "keyserver", key: Self.vectorKey.publicKey, now: 1_606_044_000) }
        let stranger = P256.Signing.PrivateKey()
        #expect(throws: ENXCertificate.Problem.badSignature) { try certificate.verify(audience: Self.audience, key: stranger.publicKey, now: 1_606_044_000) }
        // The claims as this side writes them are the sheet's bytes, so the payload segment is the token's.
        let payload = String(Self.vectorToken.split(separator: ".")[1])
        #expect(Array(expected.json()).base64URLString == payload)
    }

    /// A certificate made here for the sheet's moment is Vector C's claims, and verifies as Vector C does.
    @Test func aCertificateMadeHereCarriesTheReferencesClaims() throws {
        let symptoms = try #require(UTCDay("2020-11-20"))
        let claims = ENXCertificateClaims(
            issuer: "diagnosis-verification-example", audience: Self.audience, now: 1_606_044_000, lifetime: 900,
            reportType: .confirmed, symptomDate: symptoms, tekmac: "2lxvM/UE5KsqGv6Ohp+EUqQilV0Qt93qrHfzTCmYu7Q="
        )
        let token = try ENXCertificate.sign(claims, keyID: "r1v1", with: Self.vectorKey)
        // Header and payload are the sheet's bytes; the signature differs (random k) but verifies.
        let vector = Self.vectorToken.split(separator: ".")
        #expect(token.split(separator: ".")[0] == vector[0] && token.split(separator: ".")[1] == vector[1])
        let read = try #require(ENXCertificate(token))
        #expect(try read.verify(audience: Self.audience, key: Self.vectorKey.publicKey, now: 1_606_044_000) == claims)
        // Without a symptom date the claim is left out, not written as null.
        let likely = ENXCertificateClaims(issuer: "i", audience: "a", now: 1_606_044_000, lifetime: 900, reportType: .likely, symptomDate: nil, tekmac: "m")
        #expect(String(decoding: likely.json(), as: UTF8.self) == #"{"aud":"a","exp":1606044900,"iat":1606043995,"iss":"i","nbf":1606043995,"reportType":"likely","tekmac":"m"}"#)
    }

    /// What is no ES256 certificate is not read at all: `none`, HS256, no `kid`, an audience list, a changed byte.
    @Test func tokensOfAnotherFormAreNotCertificates() throws {
        let parts = Self.vectorToken.split(separator: ".").map(String.init)
        func segment(_ json: String) -> String { Array(json.utf8).base64URLString }
        let claims = try #require(Data(base64URL: parts[1])).count
        #expect(claims > 0)
        let forms = [
            segment(#"{"alg":"none","kid":"r1v1","typ":"JWT"}"#) + "." + parts[1] + ".",
            segment(#"{"alg":"HS256","kid":"r1v1","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2],
            segment(#"{"alg":"ES256","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2],
            parts[0] + "." + segment(#"{"aud":["exposure-notifications-server"],"exp":1606044900,"iat":1606043995,"iss":"x","nbf":1606043995,"reportType":"confirmed","tekmac":"m"}"#) + "." + parts[2],
            parts[0] + "." + parts[1],
            parts[0] + "." + parts[1] + "." + parts[2] + ".x",
            parts[0] + "=." + parts[1] + "." + parts[2],
            "garbage",
        ]
        for form in forms { #expect(ENXCertificate(form) == nil, "\(form)") }
        // One byte of the payload changed: still read, but its signature fails.
        var payload = try #require(Data(base64URL: parts[1]))
        payload[payload.count - 3] ^= 0x01
        let tampered = try #require(ENXCertificate(parts[0] + "." + Array(payload).base64URLString + "." + parts[2]))
        #expect(throws: ENXCertificate.Problem.badSignature) { try tampered.verify(audience: Self.audience, key: Self.vectorKey.publicKey, now: 1_606_044_000) }
        // A report type of none of the four, signed properly, is refused after the signature.
        var odd = try #require(ENXCertificate(Self.vectorToken)).claims
        odd.reportType = "positive"
        let signed = try #require(ENXCertificate(try ENXCertificate.sign(odd, keyID: "r1v1", with: Self.vectorKey)))
        #expect(throws: ENXCertificate.Problem.unknownReportType) { try signed.verify(audience: Self.audience, key: Self.vectorKey.publicKey, now: 1_606_044_000) }
    }

    @Test func acceptListsExpandAsTheReferenceDoes() {
        let all = Set(ENXReportType.allCases)
        #expect(ENXReportType.accepted(by: nil) == all && ENXReportType.accepted(by: []) == all)
        #expect(ENXReportType.accepted(by: ["confirmed"]) == [.confirmed])
        #expect(ENXReportType.accepted(by: ["LIKELY"]) == [.confirmed, .likely])
        #expect(ENXReportType.accepted(by: ["negative"]) == [.confirmed, .likely, .negative])
        #expect(ENXReportType.accepted(by: ["user-report"]) == [.confirmed, .userReport])
        #expect(ENXReportType.accepted(by: ["likely", "user-report"]) == [.confirmed, .likely, .userReport])
        #expect(ENXReportType.accepted(by: ["confirmed", "positive"]) == nil)
        #expect(ENXReportType.accepted(by: [""]) == nil)
    }

    @Test func base64IsReadInEveryFormPhonesSend() {
        let bytes = Data([0xfb, 0xff, 0xbf, 0x01])
        for text in ["+/+/AQ==", "+/+/AQ", "-_-_AQ==", "-_-_AQ"] { #expect(Data(lenientBase64: text) == bytes, "\(text)") }
        for text in ["+/+/A", "+/+/AQ=", "+/+/A Q==", "é"] { #expect(Data(lenientBase64: text) == nil, "\(text)") }
        #expect(Data(base64URL: "-_-_AQ") == bytes)
        #expect(Data(base64URL: "+/+/AQ") == nil && Data(base64URL: "-_-_AQ==") == nil)
    }

    @Test func aUTCDayHasItsMidnight() throws {
        #expect(UTCDay(containing: 1_606_044_000).description == "2020-11-22")
        #expect(UTCDay(containing: -1).description == "1969-12-31")
        #expect(try #require(UTCDay("2020-11-20")).midnight / 600 == 2_676_384)
        #expect(UTCDay("2020/11/20") == nil && UTCDay("2021-02-29") == nil)
    }
}
