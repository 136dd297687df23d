import ExposureRules
import Foundation
import JWTKit

/// Issues and checks the JWTs of the LEMON API: ES256 under the configured key, one hour, `sub` = the device's id
/// (the seed: "the id is embedded"). A token says nothing else about the device.
public struct LemonAccessTokens: Sendable {
    public static let lifetime: TimeInterval = 3600

    private let keys: JWTKeyCollection
    private let clock: any WallClock
    private let random: any RandomSource

    public init(privateKey: ES256PrivateKey, clock: any WallClock, random: any RandomSource) async {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: privateKey)
        self.keys = keys
        self.clock = clock
        self.random = random
    }

    /// A new token for a device and when it expires.
    public func issue(deviceID: String) async throws -> (token: String, expiry: Date) {
        let now = clock.now()
        let issued = Date(timeIntervalSince1970: TimeInterval(now.epochSeconds))
        let expiry = issued.addingTimeInterval(Self.lifetime)
        let claims = LemonDeviceClaims(
            sub: SubjectClaim(value: deviceID), iat: IssuedAtClaim(value: issued), exp: ExpirationClaim(value: expiry),
            jti: IDClaim(value: random.bytes(count: 16).hexString)
        )
        return (try await keys.sign(claims), expiry)
    }

    /// The device id of a valid, unexpired token from `Authorization: Bearer <JWT>`, or unauthorized.
    public func deviceID(authorization: String?) async throws(LemonRejection) -> String {
        let rejected = LemonRejection.unauthorized("A valid access token is required.")
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { throw rejected }
        let claims: LemonDeviceClaims
        do {
            claims = try await keys.verify(String(authorization.dropFirst(7)), as: LemonDeviceClaims.self)
        } catch {
            throw rejected
        }
        guard claims.exp.value > clock.now(), !claims.sub.value.isEmpty else { throw rejected }
        return claims.sub.value
    }
}
