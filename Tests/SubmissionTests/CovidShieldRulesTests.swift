import ExposureCore
import ExposureProtocol
import Foundation
import Testing

@testable import SubmissionDomain

/// The CovidShield rules alone, from the sheet's bytes, on a fixed clock: no HTTP, no database.
@Suite struct CovidShieldRulesTests {
    static let rules = CovidShieldRetrievalRules(hmacKey: CovidShieldWire.hmacKey)
    /// 2020-05-20 16:00 UTC: hour 441664, the sheet's HMAC example.
    static let now = Date(timeIntervalSince1970: 441_664 * 3600)

    @Test func theSheetsHMACIsAcceptedAnHourEitherSideOfTheServersHour() throws {
        let hmac = "43fde2f766b8c716973bce516eb84a9b83aed0ff23ffc2f7af19ecddd8dba5a6"
        #expect(CovidShieldWire.hmac("2020-05-19", hour: 441_664) == hmac)
        for hour in [441_663, 441_664, 441_665] as [Int64] {
            #expect(throws: Never.self) { try Self.rules.authenticate(message: "2020-05-19", hmac: hmac, now: Date(timeIntervalSince1970: TimeInterval(hour * 3600 + 59))) }
        }
        for hour in [441_662, 441_666] as [Int64] {
            #expect(throws: CovidShieldTextAnswer.unauthorized) { try Self.rules.authenticate(message: "2020-05-19", hmac: hmac, now: Date(timeIntervalSince1970: TimeInterval(hour * 3600))) }
        }
        // Upper-case hex is the same MAC.
        #expect(throws: Never.self) { try Self.rules.authenticate(message: "2020-05-19", hmac: hmac.uppercased(), now: Date(timeIntervalSince1970: 441_664 * 3600)) }
    }

    @Test func datesAreStrictCalendarDates() {
        #expect(CovidShieldRetrievalRules.dayNumber("2020-05-19") == 18_401)
        for bad in ["2020-5-19", "2020-02-30", "20200519", "2020-05-19x", "", "+020-05-19", "2020-00-10"] {
            #expect(CovidShieldRetrievalRules.dayNumber(bad) == nil, "\(bad)")
        }
    }

    @Test func aWindowCoversItsHoursAndKeysOfTheLastFourteenDays() throws {
        let window = try Self.rules.day(date: "2020-05-19", hmac: CovidShieldWire.hmac("2020-05-19", hour: 441_664), now: Self.now)
        #expect(window.startTimestamp == 1_589_846_400 && window.endTimestamp == 1_589_932_800)
        #expect(window.minimumRollingStart == Int32((18_402 - 14) * 144))
        let hour = try Self.rules.hour(date: "2020-05-20", hour: "07", hmac: CovidShieldWire.hmac("2020-05-20:07", hour: 441_664), now: Self.now)
        #expect(hour.firstHour == 18_402 * 24 + 7 && hour.endHour == 18_402 * 24 + 8)
    }

    @Test func keyPairsLiveUntilMidnightOfTheIssueDayPlusFifteenDays() {
        let midnight: Int64 = 1_589_932_800
        for issued in [midnight, midnight + 57_600, midnight + 86_399] {
            #expect(CovidShieldKeyPairPolicy.validUntil(issuedAt: issued) == midnight + 15 * 86_400)
        }
    }

    @Test func theSheetsUploadOpensToItsKey() throws {
        let sealed = try CovidShieldSealedUpload.parse(CovidShieldWire.bytes("""
            0a20af1855c95e561b3464c6ce46a1d7914de6183cfb1629cecf9ce1f8a82533276b
            1220ecbdc1e65e50aa5d18eed343987b3049e0b29f3d66994938a94aeba61f3f8a14
            1a18000102030405060708090a0b0c0d0e0f1011121314151617
            22367f1b031703128b549002f5b6884922fc55a7195613115e56deb20d7735b199f2e254c5c634d60715fde7a629cc878e3fc1447dda21dd
            """))
        #expect(sealed.serverPublicKey == CovidShieldWire.serverPair.publicKey)
        let keys = try sealed.open(secretKey: CovidShieldWire.serverPair.secretKey, rules: CovidShieldKeyRules(), region: "ON", now: Date(timeIntervalSince1970: 1_589_990_400 + 3599))
        #expect(keys.map(\.keyData) == [Data(0..<16)])
        #expect(keys.map(\.rollingStartIntervalNumber) == [2_649_744])
        // An hour later the same upload is too old.
        #expect(throws: CovidShieldUploadRejection.invalidTimestamp) {
            _ = try sealed.open(secretKey: CovidShieldWire.serverPair.secretKey, rules: CovidShieldKeyRules(), region: "ON", now: Date(timeIntervalSince1970: 1_589_990_400 + 3600))
        }
        // Opened with another pair's secret: not decryptable.
        #expect(throws: CovidShieldUploadRejection.decryptionFailed) {
            _ = try sealed.open(secretKey: CovidShieldWire.appPair.secretKey, rules: CovidShieldKeyRules(), region: "ON", now: Date(timeIntervalSince1970: 1_589_990_400))
        }
    }

    @Test func theSheetsClaimParsesAndItsAnswersEncode() throws {
        let claim = try CovidShieldClaimRequest.parse(CovidShieldWire.bytes("0a083132333435363738 1220ecbdc1e65e50aa5d18eed343987b3049e0b29f3d66994938a94aeba61f3f8a14"))
        #expect(claim.oneTimeCode == "12345678" && claim.appPublicKey == CovidShieldWire.appPair.publicKey)
        #expect(CovidShieldClaimRequest.grantedBody(serverPublicKey: CovidShieldWire.serverPair.publicKey)
            == CovidShieldWire.bytes("1220af1855c95e561b3464c6ce46a1d7914de6183cfb1629cecf9ce1f8a82533276b"))
        #expect(CovidShieldClaimRejection.invalidCode.body == [0x08, 0x02])
        #expect(CovidShieldUploadRejection.body(.none) == [0x08, 0x00])
    }

    @Test func sealedSecretsOpenOnlyUnderTheirKeyAndForTheirRow() throws {
        let sealer = SecretSealer(key: [UInt8](repeating: 1, count: 32))
        let sealed = try sealer.seal([UInt8](repeating: 7, count: 32), belongingTo: [1, 2, 3])
        #expect(try sealer.open(sealed, belongingTo: [1, 2, 3]) == [UInt8](repeating: 7, count: 32))
        #expect(throws: (any Error).self) { try sealer.open(sealed, belongingTo: [1, 2, 4]) }
        #expect(throws: (any Error).self) { try SecretSealer(key: [UInt8](repeating: 2, count: 32)).open(sealed, belongingTo: [1, 2, 3]) }
    }
}
