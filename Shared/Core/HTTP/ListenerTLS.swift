import Crypto
import Foundation
import HTTPTypes
import Metrics
import HummingbirdTLS
import NIOCore
import NIOHTTPTypes
import NIOSSL

/// TLS for a listener, optionally asking clients for a certificate.
///
/// Client certificates are not checked against a CA: a lab's certificate is identified by its SHA-256 fingerprint,
/// which the service looks up in its own allow-list (bound to one lab). The fingerprint reaches the handlers as the
/// request header `ListenerTLS.clientCertificateHeader`, set only by the TLS layer; the same header sent by a client
/// is removed first.
public struct ListenerTLS: Sendable {
    public static let clientCertificateHeader = HTTPField.Name("x-exposure-client-cert-sha256")!

    public var certificateChain: [NIOSSLCertificate]
    public var privateKey: NIOSSLPrivateKey
    public var requestClientCertificate: Bool

    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey, requestClientCertificate: Bool) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.requestClientCertificate = requestClientCertificate
    }

    /// Reads `TLS_CERT_FILE` and `TLS_KEY_FILE` (PEM); nil when neither is set.
    public init?(_ settings: Settings, requestClientCertificate: Bool) throws(ConfigurationError) {
        let certificate = try settings.file("TLS_CERT_FILE", holds: .publicData)
        let key = try settings.file("TLS_KEY_FILE", holds: .secret)
        guard certificate != nil || key != nil else { return nil }
        guard let certificate else { throw ConfigurationError(variable: "TLS_CERT_FILE", reason: "is required when TLS_KEY_FILE is set") }
        guard let key else { throw ConfigurationError(variable: "TLS_KEY_FILE", reason: "is required when TLS_CERT_FILE is set") }
        do {
            certificateChain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw ConfigurationError(variable: "TLS_CERT_FILE", reason: "names \(certificate), which is not a readable PEM certificate chain")
        }
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw ConfigurationError(variable: "TLS_KEY_FILE", reason: "names \(key), which is not a readable PEM private key")
        }
        self.requestClientCertificate = requestClientCertificate
    }

    /// The Unix time at which the first certificate of the chain to expire does, as the gauge
    /// `tls_certificate_expiry_timestamp_seconds{listener}`, which the alert `ExposureCertificateExpiresSoon` watches.
    public var expiry: Int {
        certificateChain.map { Int($0.notValidAfter) }.min() ?? 0
    }

    func recordCertificateExpiry(listener: String) {
        Gauge(label: "tls_certificate_expiry_timestamp_seconds", dimensions: [("listener", listener)]).record(expiry)
    }

    var channelConfiguration: TLSChannelConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificateChain.map { .certificate($0) }, privateKey: .privateKey(privateKey)
        )
        configuration.minimumTLSVersion = .tlsv12
        guard requestClientCertificate else { return TLSChannelConfiguration(tlsConfiguration: configuration) }
        // Ask for a certificate without requiring one (labs may use API keys) and accept any presented: who it
        // belongs to is decided by its fingerprint, per request.
        configuration.certificateVerification = .optionalVerification
        return TLSChannelConfiguration(tlsConfiguration: configuration) { _, promise in
            promise.succeed(.certificateVerified)
        }
    }

    /// SHA-256 of a certificate's DER encoding, lower-case hex: how operators name lab certificates.
    public static func fingerprint(_ certificate: NIOSSLCertificate) throws -> String {
        SecretHash.sha256Hex(try certificate.toDERBytes())
    }
}

/// Puts the TLS client certificate's fingerprint into each request head, after removing any client-sent copy.
final class ClientCertificateHeaderHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        head.headerFields[ListenerTLS.clientCertificateHeader] = nil
        if let handler = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self),
           let certificate = handler.peerCertificate,
           let fingerprint = try? ListenerTLS.fingerprint(certificate) {
            head.headerFields[ListenerTLS.clientCertificateHeader] = fingerprint
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
