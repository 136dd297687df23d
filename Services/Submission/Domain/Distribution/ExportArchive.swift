import ExposureProtocol
import Foundation
import ZIPFoundation

/// One key file: a zip holding `export.bin` (header + `TemporaryExposureKeyExport`) then `export.sig`
/// (`TEKSignatureList` with a signature by every configured key over all of `export.bin`).
public enum ExportArchive {
    public struct Batch: Sendable {
        public var startTimestamp: UInt64
        public var endTimestamp: UInt64
        public var region: String
        public var batchNumber: Int32
        public var batchSize: Int32

        public init(startTimestamp: UInt64, endTimestamp: UInt64, region: String, batchNumber: Int32 = 1, batchSize: Int32 = 1) {
            self.startTimestamp = startTimestamp
            self.endTimestamp = endTimestamp
            self.region = region
            self.batchNumber = batchNumber
            self.batchSize = batchSize
        }
    }

    /// The zip's bytes for `keys` (already ordered), signed by each of `signers`.
    public static func make(keys: some Collection<ExportableKey>, batch: Batch, signers: ExportSignerSet) throws -> Data {
        var export = TemporaryExposureKeyExport()
        export.startTimestamp = batch.startTimestamp
        export.endTimestamp = batch.endTimestamp
        export.region = batch.region
        export.batchNum = batch.batchNumber
        export.batchSize = batch.batchSize
        export.signatureInfos = signers.signatureInfos
        export.keys = keys.map(RiskLevelEncoding.exported)
        let binary = try ExportFileFormat.exportBinary(export)
        let list = try signers.signatureList(for: binary, batchNumber: batch.batchNumber, batchSize: batch.batchSize)
        return try zip([("export.bin", Data(binary)), ("export.sig", try list.serializedData())])
    }

    /// A zip with the entries in the given order (phones expect `export.bin` first).
    public static func zip(_ entries: [(name: String, data: Data)]) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        // A fixed date: the bytes of a file depend only on its content and signature.
        let date = Date(timeIntervalSince1970: 1_577_836_800)
        for (name, data) in entries {
            try archive.addEntry(
                with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: date,
                compressionMethod: .deflate
            ) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let bytes = archive.data else { throw ExportArchiveError.emptyArchive }
        return bytes
    }

    /// Reads a key file back: the export and the signature list (for tests, the demo and operators' checks).
    public static func read(_ zip: Data) throws -> (binary: [UInt8], export: TemporaryExposureKeyExport, signatures: TEKSignatureList) {
        let archive = try Archive(data: zip, accessMode: .read)
        func entry(_ name: String) throws -> Data {
            guard let entry = archive[name] else { throw ExportArchiveError.missingEntry(name) }
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            return data
        }
        let names = archive.map(\.path)
        guard names == ["export.bin", "export.sig"] else { throw ExportArchiveError.unexpectedEntries(names) }
        let binary = Array(try entry("export.bin"))
        return (binary, try ExportFileFormat.parseExportBinary(binary), try TEKSignatureList(serializedBytes: Array(try entry("export.sig"))))
    }
}

public enum ExportArchiveError: Error, Equatable {
    case emptyArchive
    case missingEntry(String)
    case unexpectedEntries([String])
}
