import AsyncHTTPClient
import ExposureCore
import Foundation
import JWTKit
import Logging
import NIOCore

/// Where the public keys that sign officers' tokens come from: a JWKS URL (an OIDC provider such as
/// Keycloak, refreshed periodically so that key rotation needs no restart) and/or static PEM files.
public struct SigningKeySource: Sendable {
    public var jwksURL: URL?
    public var publicKeyFiles: [String]

    public init(jwksURL: URL?, publicKeyFiles: [String]) {
        self.jwksURL = jwksURL
        self.publicKeyFiles = publicKeyFiles
    }

    public var isConfigured: Bool { jwksURL != nil || !publicKeyFiles.isEmpty }

    /// The static keys, each in a collection of its own (`OfficerSigningKeys`). A key that cannot be read stops
    /// start-up with the variable's name.
    public func loadStaticKeys() async throws -> [JWTKeyCollection] {
        var collections: [JWTKeyCollection] = []
        for path in publicKeyFiles {
            let keys = JWTKeyCollection()
            let pem: String
            do {
                pem = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw ConfigurationError(variable: "JWT_PUBLIC_KEY_FILES", reason: "names \(path), which cannot be read")
            }
            if let key = try? ES256PublicKey(pem: pem) {
                await keys.add(ecdsa: key)
            } else if let key = try? Insecure.RSA.PublicKey(pem: pem) {
                await keys.add(rsa: key, digestAlgorithm: .sha256)
            } else {
                throw ConfigurationError(variable: "JWT_PUBLIC_KEY_FILES", reason: "names \(path), which is not a PEM EC P-256 or RSA public key")
            }
            collections.append(keys)
        }
        return collections
    }

    /// Fetches the JWKS and trusts exactly its keys from now on (see `OfficerSigningKeys`).
    public func refreshJWKS(into keys: OfficerSigningKeys, logger: Logger) async throws {
        guard let jwksURL else { return }
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: jwksURL.absoluteString), timeout: .seconds(5))
        guard response.status == .ok else { throw JWKSUnavailable(status: Int(response.status.code)) }
        let body = try await response.body.collect(upTo: 1024 * 1024)
        try await keys.replacePublishedKeys(jwksJSON: String(buffer: body))
        logger.debug("signing keys refreshed from JWKS")
    }

    struct JWKSUnavailable: Error {
        let status: Int
    }
}
