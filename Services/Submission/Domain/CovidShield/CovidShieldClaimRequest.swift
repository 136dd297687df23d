import ExposureProtocol
import Foundation

/// A key claim as the rules accept it: the checks of the sheet that need nothing stored, in its order.
public struct CovidShieldClaimRequest: Sendable, Equatable {
    /// KeyClaimRequest bodies larger than this are refused unread.
    public static let maxBytes = 256
    public static let appKeyBytes = 32
    /// What verification takes as a code (`OneTimeCodeRedemption.code`); anything else cannot be one of its codes.
    public static let codeLengths = 1...32

    public let oneTimeCode: String
    public let appPublicKey: [UInt8]

    /// Parses a body; `tooLarge` when more than `maxBytes` were sent.
    public static func parse(_ bytes: [UInt8], tooLarge: Bool = false) throws(CovidShieldClaimRejection) -> Self {
        guard !tooLarge, bytes.count <= maxBytes,
              let request = try? Covidshield_KeyClaimRequest(serializedBytes: bytes) // proto2: required fields enforced
        else { throw .unreadable }
        guard request.appPublicKey.count == appKeyBytes else { throw .malformedAppKey }
        return Self(oneTimeCode: request.oneTimeCode, appPublicKey: Array(request.appPublicKey))
    }

    /// Whether the code could be one at all: a code verification would refuse to read is simply a wrong code, answered
    /// without asking.
    public var codeIsPlausible: Bool { Self.codeLengths.contains(oneTimeCode.count) }

    /// The answer to a granted claim: the server's public key, the error left absent (NONE).
    public static func grantedBody(serverPublicKey: [UInt8]) -> [UInt8] {
        var response = Covidshield_KeyClaimResponse()
        response.serverPublicKey = Data(serverPublicKey)
        return (try? response.serializedBytes()) ?? []
    }
}
