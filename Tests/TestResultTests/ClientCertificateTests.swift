import AsyncHTTPClient
import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import Testing
import X509
@testable import TestResult

/// Labs on TLS: a registered client certificate is a credential bound to one lab, like an API key.
@Suite struct ClientCertificateTests {
    struct Identity {
        let certificate: Certificate
        let key: P256.Signing.PrivateKey

        init(commonName: String) throws {
            key = P256.Signing.PrivateKey()
            let name = try DistinguishedName { CommonName(commonName) }
            let now = Date()
            certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions { SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]) },
                issuerPrivateKey: .init(key)
            )
        }

        var pem: String { get throws { try certificate.serializeAsPEM().pemString } }
        var niossl: NIOSSLCertificate { get throws { try NIOSSLCertificate(bytes: Array(try pem.utf8), format: .pem) } }
        var niosslKey: NIOSSLPrivateKey { get throws { try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem) } }
    }

    /// test-result with HTTPS on the lab listener; `body` gets the lab port, the server identity and the database.
    func withTLSService(on kind: TestDatabase, _ body: (Int, Identity, Database) async throws -> Void) async throws {
        let server = try Identity(commonName: "localhost")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try server.pem.write(to: directory.appendingPathComponent("cert.pem"), atomically: true, encoding: .utf8)
        try SecretFile.write(server.key.pemRepresentation, to: directory.appendingPathComponent("key.pem"))
        try await kind.withFreshDatabaseURL { url in
            let configuration = try TestResultConfiguration(TestServices.settings([
                "DATABASE_URL": url.connectionString, "PORT": "0", "INTERNAL_PORT": "0", "BIND_HOST": "127.0.0.1",
                "TLS_CERT_FILE": directory.appendingPathComponent("cert.pem").path,
                "TLS_KEY_FILE": directory.appendingPathComponent("key.pem").path,
            ]))
            let bundle = try await TestResultService.makeBundle(configuration, environment: TestServices.environment())
            let database = try await Database.connect(url, poolSize: 2, logger: TestLogger.quiet)
            do {
                try await TestServices.withRunning([bundle]) { running in
                    try await body(await running.bundle(TestResultService.name).port(TestResultService.labListener), server, database)
                }
                await database.shutdown()
            } catch {
                await database.shutdown()
                throw error
            }
        }
    }

    /// POSTs a one-result batch over HTTPS, trusting `server`, presenting `client` if given.
    func post(port: Int, server: Identity, client: Identity?, labId: String? = nil, headers: [(String, String)] = []) async throws -> Int {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try server.niossl])
        if let client {
            tls.certificateChain = [.certificate(try client.niossl)]
            tls.privateKey = .privateKey(try client.niosslKey)
        }
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        do {
            var body: [String: Any] = ["testResults": [["id": SecretHash.sha256Hex("tls-guid"), "result": 2]]]
            if let labId { body["labId"] = labId }
            var request = HTTPClientRequest(url: "https://localhost:\(port)/api/v1/lab/results")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            let response = try await http.execute(request, timeout: .seconds(10))
            try await http.shutdown()
            return Int(response.status.code)
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    @Test(arguments: TestDatabase.all)
    func aRegisteredCertificateAuthenticatesItsLab(kind: TestDatabase) async throws {
        try await withTLSService(on: kind) { port, server, database in
            let lab = try Identity(commonName: "lab-berlin")
            let stranger = try Identity(commonName: "lab-berlin")
            let store = LabCredentialStore(database: database)
            let fingerprint = try ListenerTLS.fingerprint(try lab.niossl)
            try await store.add(labID: "lab-berlin", keyHash: fingerprint, kind: .certificate, now: Date())

            let accepted = try await post(port: port, server: server, client: lab)
            #expect(accepted == 204)
            let claimed = try await post(port: port, server: server, client: lab, labId: "lab-munich")
            #expect(claimed == 403)
            let unknown = try await post(port: port, server: server, client: stranger)
            #expect(unknown == 401)
            let none = try await post(port: port, server: server, client: nil)
            #expect(none == 401)
            // A client cannot forge the fingerprint header: the TLS layer replaces it.
            let forged = try await post(port: port, server: server, client: stranger, headers: [("x-exposure-client-cert-sha256", fingerprint)])
            #expect(forged == 401)
            // API keys still work over TLS.
            let key = try await TestResultAdmin.addLab("lab-hamburg", store: store, random: SystemRandomSource(), now: Date())
            let withKey = try await post(port: port, server: server, client: nil, headers: [("Authorization", "Bearer \(key)")])
            #expect(withKey == 204)
            // Revoking the lab revokes its certificate.
            _ = try await store.revoke(labID: "lab-berlin", now: Date())
            let revoked = try await post(port: port, server: server, client: lab)
            #expect(revoked == 401)
        }
    }

    @Test func fingerprintsAreAcceptedFromFilesOrHex() throws {
        let lab = try Identity(commonName: "lab")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lab-\(UUID().uuidString).pem")
        try lab.pem.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let fingerprint = try TestResultAdmin.certificateFingerprint(file.path)
        #expect(fingerprint == (try ListenerTLS.fingerprint(try lab.niossl)))
        let colons = stride(from: 0, to: 64, by: 2).map { String(Array(fingerprint.uppercased())[$0..<$0 + 2]) }.joined(separator: ":")
        #expect(try TestResultAdmin.certificateFingerprint(colons) == fingerprint)
        #expect(throws: UsageError.self) { try TestResultAdmin.certificateFingerprint("nope") }
    }

    @Test func halfATLSConfigurationIsRefused() {
        #expect(throws: ConfigurationError.self) { _ = try TestResultConfiguration(TestServices.settings(["TLS_CERT_FILE": "/x.pem"])) }
        #expect(throws: ConfigurationError.self) {
            _ = try TestResultConfiguration(TestServices.settings(["TLS_CERT_FILE": "/nonexistent.pem", "TLS_KEY_FILE": "/nonexistent.key"]))
        }
    }
}
