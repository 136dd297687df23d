import Foundation

/// A development key the suite keeps in its data directory: made once, mode 0600, never printed. Only the suite
/// makes keys; the services themselves refuse to start without configured ones.
enum SuiteKeyFile {
    static func createIfMissing(_ path: String, _ contents: () throws -> String) throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let created = FileManager.default.createFile(atPath: path, contents: Data(try contents().utf8), attributes: [.posixPermissions: 0o600])
        if !created { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    }
}
