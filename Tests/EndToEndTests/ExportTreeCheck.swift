import Crypto
import ExposureProtocol
import Foundation
import Testing
import ZIPFoundation

/// Reads a published export tree from disk as a phone and a CDN would, independently of the code that wrote it,
/// and checks that it is consistent: every index names only files that exist, and every key file, named or not,
/// is a complete zip whose `export.bin` carries one signature for each signing key, the n-th verifying against the n-th
/// key.
struct ExportTreeCheck {
    let root: URL
    /// In the order of the signatures: `SIGNING_KEY_FILE`'s, then `SIGNING_ADDITIONAL_KEY_FILES`'s.
    let publicKeys: [P256.Signing.PublicKey]
    let country = "DE"

    /// What a phone can reach from the indexes: each key file's path and its `export.bin`.
    struct Reachable: Equatable {
        var files: [String: Data] = [:]
        var dates: [String] = []
    }

    enum Problem: Error, CustomStringConvertible {
        case missing(String, listedBy: String)
        case invalid(String, String)

        var description: String {
            switch self {
            case .missing(let path, let index): "\(index) lists \(path), which does not exist"
            case .invalid(let path, let reason): "\(path): \(reason)"
            }
        }
    }

    private var dateIndex: String { "version/v1/diagnosis-keys/country/\(country)/date" }

    /// Checks the tree and returns what is reachable; throws the first inconsistency.
    func check() throws -> Reachable {
        var reachable = Reachable()
        if let versions = try index("version") as [String]? {
            guard versions == ["v1"] else { throw Problem.invalid("version", "lists \(versions)") }
        }
        if let countries = try index("version/v1/diagnosis-keys/country") as [String]? {
            guard countries == [country] else { throw Problem.invalid("country", "lists \(countries)") }
        }
        if let dates = try index(dateIndex) as [String]? {
            reachable.dates = dates
            for date in dates {
                let path = "\(dateIndex)/\(date)"
                guard exists(path) else { throw Problem.missing(path, listedBy: dateIndex) }
                try addBundle(path, to: &reachable)
            }
        }
        for date in children(dateIndex) {
            let hourIndex = "\(dateIndex)/\(date)/hour"
            guard let hours = try index(hourIndex) as [Int]? else { continue }
            for hour in hours {
                let path = "\(hourIndex)/\(hour)"
                guard exists(path) else { throw Problem.missing(path, listedBy: hourIndex) }
                try addBundle(path, to: &reachable)
            }
        }
        // Files no index names yet (a run killed before its indexes) must be complete all the same: a CDN may
        // already have them, and the next run keeps them as they are.
        for path in keyFiles() where reachable.files[path] == nil {
            _ = try verifiedExport(path)
        }
        return reachable
    }

    /// A bundle's first batch at `path`, and its further batches when `path/parts` lists them.
    private func addBundle(_ path: String, to reachable: inout Reachable) throws {
        reachable.files[path] = try verifiedExport(path)
        guard let parts = try index("\(path)/parts") as [Int]? else { return }
        for number in parts where number > 1 {
            let part = "\(path)/part/\(number)"
            guard exists(part) else { throw Problem.missing(part, listedBy: "\(path)/parts") }
            reachable.files[part] = try verifiedExport(part)
        }
    }

    /// The `export.bin` of the zip at `path`, after checking the zip's entries, header and signature.
    func verifiedExport(_ path: String) throws -> Data {
        let archive: Archive
        do {
            archive = try Archive(data: try Data(contentsOf: file(path)), accessMode: .read)
        } catch {
            throw Problem.invalid(path, "not a zip: \(error)")
        }
        let names = archive.map(\.path)
        guard names == ["export.bin", "export.sig"] else { throw Problem.invalid(path, "entries \(names)") }
        func entry(_ name: String) throws -> Data {
            var data = Data()
            _ = try archive.extract(archive[name]!) { data.append($0) }
            return data
        }
        let binary = try entry("export.bin")
        let export: TemporaryExposureKeyExport
        do {
            export = try ExportFileFormat.parseExportBinary(Array(binary))
        } catch {
            throw Problem.invalid(path, "export.bin: \(error)")
        }
        let signatures = try TEKSignatureList(serializedBytes: Array(try entry("export.sig"))).signatures
        guard signatures.count == publicKeys.count else {
            throw Problem.invalid(path, "\(signatures.count) signatures for \(publicKeys.count) signing keys")
        }
        for (number, (signature, publicKey)) in zip(signatures, publicKeys).enumerated() {
            guard let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature.signature),
                  publicKey.isValidSignature(ecdsa, for: binary)
            else { throw Problem.invalid(path, "signature \(number + 1) does not verify") }
            guard signature.batchNum == export.batchNum, signature.batchSize == export.batchSize, export.region == country else {
                throw Problem.invalid(path, "batch \(export.batchNum)/\(export.batchSize) region \(export.region)")
            }
        }
        return binary
    }

    /// Every key file on disk: the `index` of a date or of an hour (not the indexes listing them).
    func keyFiles() -> [String] {
        allFiles().filter { $0.firstMatch(of: /\/date\/\d{4}-\d{2}-\d{2}(\/hour\/\d+)?(\/part\/\d+)?$/) != nil }
    }

    /// The paths of every file on disk (`<path>/index`), relative to the root, and the leftovers of interrupted
    /// writes (`.tmp`).
    func allFiles() -> [String] {
        var paths: [String] = []
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        let prefix = root.standardizedFileURL.path + "/"
        for case let url as URL in enumerator where url.lastPathComponent == "index" {
            paths.append(String(url.deletingLastPathComponent().standardizedFileURL.path.dropFirst(prefix.count)))
        }
        return paths.sorted()
    }

    func temporaryFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        return enumerator.compactMap { ($0 as? URL)?.lastPathComponent }.filter { $0.hasSuffix(".tmp") }
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: file(path).path) }

    private func file(_ path: String) -> URL {
        root.appendingPathComponent(path, isDirectory: true).appendingPathComponent("index")
    }

    /// The JSON array at `path`, or nil when there is no file there yet.
    private func index<Element>(_ path: String) throws -> [Element]? {
        guard exists(path) else { return nil }
        let data = try Data(contentsOf: file(path))
        guard let list = try? JSONSerialization.jsonObject(with: data) as? [Element] else {
            throw Problem.invalid(path, "not a JSON list: \(String(decoding: data, as: UTF8.self))")
        }
        return list
    }

    private func children(_ path: String) -> [String] {
        let url = root.appendingPathComponent(path, isDirectory: true)
        return ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") && $0 != "index" }.sorted()
    }
}
