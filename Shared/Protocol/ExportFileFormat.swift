import SwiftProtobuf

/// The `export.bin` entry of a key file: a fixed 16-byte header followed by a serialized
/// ``TemporaryExposureKeyExport``. The signature in `export.sig` covers all of it, header included.
public enum ExportFileFormat {
    /// `"EK Export v1"` padded with four spaces to 16 bytes.
    public static let header: [UInt8] = Array("EK Export v1    ".utf8)

    /// Header followed by the serialized export: the exact bytes to write as `export.bin` and to sign.
    public static func exportBinary(_ export: TemporaryExposureKeyExport) throws -> [UInt8] {
        let body: [UInt8] = try export.serializedBytes()
        return header + body
    }

    /// Reads `export.bin` bytes back.
    /// - Throws: ``ExportFileError/missingHeader`` when the bytes do not start with ``header``;
    ///   ``ExportFileError/malformedExport(_:)`` when the rest is not a valid export message.
    public static func parseExportBinary<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(ExportFileError) -> TemporaryExposureKeyExport {
        guard bytes.starts(with: header) else { throw .missingHeader }
        do {
            return try TemporaryExposureKeyExport(serializedBytes: Array(bytes.dropFirst(header.count)))
        } catch {
            throw .malformedExport(String(describing: error))
        }
    }
}

public enum ExportFileError: Error, Equatable, CustomStringConvertible {
    /// The file does not begin with the 16 bytes `"EK Export v1    "`.
    case missingHeader
    /// The header is present, but what follows is not a `TemporaryExposureKeyExport`.
    case malformedExport(String)

    public var description: String {
        switch self {
        case .missingHeader:
            "not an exposure key export: export.bin must start with the 16-byte header \"EK Export v1    \""
        case .malformedExport(let reason):
            "exposure key export has a valid header but an unreadable body: \(reason)"
        }
    }
}
