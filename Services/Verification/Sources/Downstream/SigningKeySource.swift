import AsyncHTTPClient
import ExposureCore
import Foundation
import JWTKit
import Logging
import NIOCore
import VerificationDomain

/// Where the public keys that sign officers' tokens come from: a JWKS URL (an OIDC provider such as
/// Keycloak, refreshed periodically so that key rotation needs no restart) and/or static PEM files.
///
/// Each source is bound to the issuer and audience its tokens must carry (`TokenBinding`).
public struct SigningKeySource: Sendable {
    /// A PEM public key file and what its tokens must say.
    public struct KeyFile: Sendable, Equatable {
        public var path: String
        public var binding: TokenBinding

        public init(path: String, binding: TokenBinding) {
            self.path = path
            self.binding = binding
        }
    }

    public var jwksURL: URL?
    public var jwksBinding: TokenBinding?
    public var publicKeyFiles: [KeyFile]

    public init(jwksURL: URL?, jwksBinding: TokenBinding?, publicKeyFiles: [KeyFile]) {
        self.jwksURL = jwksURL
        self.jwksBinding = jwksBinding
        self.publicKeyFiles = publicKeyFiles
    }

    public var isConfigured: Bool { jwksURL != nil || !publicKeyFiles.isEmpty }

    /// The keys to verify with: each static key in a collection of its own, and the binding of the published ones. A
    /// key that cannot be read stops start-up with the variable's name.
    public func makeKeys() async throws -> OfficerSigningKeys {
        var staticKeys: [OfficerSigningKeys.StaticKey] = []
        for file in publicKeyFiles {
            staticKeys.append(OfficerSigningKeys.StaticKey(keys: try await Self.load(file.path), binding: file.binding))
        }
        return OfficerSigningKeys(staticKeys: staticKeys, publishedBinding: jwksBinding)
    }

    private static func load(_ path: String) async throws -> JWTKeyCollection {
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
        return keys
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
