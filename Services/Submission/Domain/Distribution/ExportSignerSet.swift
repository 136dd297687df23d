import ExposureProtocol
import Foundation

/// The keys that sign every export file and the app configuration: the primary key first, then the additional ones.
/// The format carries one `SignatureInfo` per key in `export.bin` and one `TEKSignature` per key in `export.sig`, in
/// the same order, so a new key can be published alongside the old one: a phone uses the signature whose key id and
/// version it was given and ignores the others (docs/operations.md, "Export-signing key").
public struct ExportSignerSet: Sendable {
    /// Never empty; the primary key first (apps that read only the first signature keep finding it there).
    public let signers: [ExportSigner]

    public init(_ primary: ExportSigner, additional: [ExportSigner] = []) {
        signers = [primary] + additional
    }

    public var primary: ExportSigner { signers[0] }

    /// `TemporaryExposureKeyExport.signature_infos`: one per key, in signing order.
    public var signatureInfos: [SignatureInfo] { signers.map(\.signatureInfo) }

    /// `export.sig`: a signature by every key over the same bytes (all of `export.bin`), each with its key's info.
    public func signatureList(for binary: [UInt8], batchNumber: Int32 = 1, batchSize: Int32 = 1) throws -> TEKSignatureList {
        var list = TEKSignatureList()
        list.signatures = try signers.map { signer in
            var signature = TEKSignature()
            signature.signatureInfo = signer.signatureInfo
            signature.batchNum = batchNumber
            signature.batchSize = batchSize
            signature.signature = Data(try signer.signature(for: binary))
            return signature
        }
        return list
    }
}
