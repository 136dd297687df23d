import Foundation
import SwiftProtobuf
import Testing

@testable import ExposureProtocol

/// The CovidShield messages against the bytes of ../shared/design/covidshield.md: what the app sends decodes, and what
/// the server answers encodes to exactly the sheet's bytes.
@Suite struct CovidShieldWireTests {
    static func bytes(_ hex: String) -> Data {
        let hex = hex.filter { !$0.isWhitespace }
        return Data(stride(from: 0, to: hex.count, by: 2).map {
            let start = hex.index(hex.startIndex, offsetBy: $0)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        })
    }

    static let appPublicKey = bytes("ecbdc1e65e50aa5d18eed343987b3049e0b29f3d66994938a94aeba61f3f8a14")
    static let serverPublicKey = bytes("af1855c95e561b3464c6ce46a1d7914de6183cfb1629cecf9ce1f8a82533276b")

    @Test func aKeyClaimDecodesAndItsAnswersEncodeAsTheSheetSays() throws {
        let request = try Covidshield_KeyClaimRequest(serializedBytes: Self.bytes("0a083132333435363738 1220" + "ecbdc1e65e50aa5d18eed343987b3049e0b29f3d66994938a94aeba61f3f8a14"))
        #expect(request.oneTimeCode == "12345678")
        #expect(request.appPublicKey == Self.appPublicKey)
        var granted = Covidshield_KeyClaimResponse()
        granted.serverPublicKey = Self.serverPublicKey
        #expect(try granted.serializedData() == Self.bytes("1220af1855c95e561b3464c6ce46a1d7914de6183cfb1629cecf9ce1f8a82533276b"))
        var refused = Covidshield_KeyClaimResponse()
        refused.error = .invalidOneTimeCode
        #expect(try refused.serializedData() == Self.bytes("0802"))
        // A request without its app key is not a request (proto2 required fields).
        #expect(throws: (any Error).self) { try Covidshield_KeyClaimRequest(serializedBytes: Self.bytes("0a083132333435363738")) }
    }

    @Test func anUploadDecodesToItsSealedPartsAndTheAnswerAlwaysCarriesItsError() throws {
        let request = try Covidshield_EncryptedUploadRequest(serializedBytes: Self.bytes("""
            0a20af1855c95e561b3464c6ce46a1d7914de6183cfb1629cecf9ce1f8a82533276b
            1220ecbdc1e65e50aa5d18eed343987b3049e0b29f3d66994938a94aeba61f3f8a14
            1a18000102030405060708090a0b0c0d0e0f1011121314151617
            22367f1b031703128b549002f5b6884922fc55a7195613115e56deb20d7735b199f2e254c5c634d60715fde7a629cc878e3fc1447dda21dd
            """))
        #expect(request.serverPublicKey == Self.serverPublicKey)
        #expect(request.appPublicKey == Self.appPublicKey)
        #expect(request.nonce == Data(0..<24))
        #expect(request.payload.count == 0x36)
        var accepted = Covidshield_EncryptedUploadResponse()
        accepted.error = .none
        #expect(try accepted.serializedData() == Self.bytes("0800"))
        #expect(Covidshield_EncryptedUploadResponse.ErrorCode.invalidTransmissionRiskLevel.rawValue == 13)
    }

    @Test func theOpenedUploadIsTheSheetsUpload() throws {
        let upload = try Covidshield_Upload(serializedBytes: Self.bytes("0a060880a895f605121c0a10000102030405060708090a0b0c0d0e0f1090dda1011890012003"))
        #expect(upload.timestamp.seconds == 1_589_990_400)
        #expect(upload.keys.count == 1)
        #expect(upload.keys[0].keyData == Data(0..<16))
        #expect(upload.keys[0].rollingStartNumber == 2_649_744)
        #expect(upload.keys[0].rollingPeriod == 144)
        #expect(upload.keys[0].transmissionRiskLevel == 3)
    }

    @Test func aRetrievalFileEncodesAsTheSheetsExample() throws {
        var header = Covidshield_Header()
        header.startTimestamp = 1_589_846_400
        header.endTimestamp = 1_589_932_800
        header.region = "ON"
        header.batchNum = 1
        header.batchSize = 1
        var key = Covidshield_Key()
        key.keyData = Data(0..<16)
        key.rollingStartNumber = 2_649_744
        key.rollingPeriod = 144
        key.transmissionRiskLevel = 3
        var file = Covidshield_File()
        file.header = header
        file.key = [key]
        let encoded = try file.serializedData()
        #expect(encoded.count == 0x34)
        #expect(encoded == Self.bytes("0a140880c38cf6051080e691f6051a024f4e20012801 121c0a10000102030405060708090a0b0c0d0e0f1090dda1011890012003"))
    }
}
