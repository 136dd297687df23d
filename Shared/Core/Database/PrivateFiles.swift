import Foundation

/// Files and folders only the service's own user may open: databases, keys, credentials. Every executable also starts
/// with the umask 077 (`CommandLineMain`), so that what it creates is private; this makes it so where a file was
/// created before (by an older version, or under another umask) and where code runs without the executable's umask
/// (tests, a library user).
public enum PrivateFiles {
    /// The mode of a private folder: only its owner lists, enters or changes it.
    public static let folderMode: Int16 = 0o700
    /// The mode of a private file.
    public static let fileMode: Int16 = 0o600

    /// Creates `directory` (and missing parents) as a private folder; an existing folder is left as it is unless
    /// `tighten`, for a folder the service owns alone (the suite's data directory).
    public static func createFolder(_ directory: String, tighten: Bool = false) throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: directory) {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: folderMode])
        } else if tighten {
            try manager.setAttributes([.posixPermissions: folderMode], ofItemAtPath: directory)
        }
    }

    /// Readies an SQLite database file before SQLite opens it: its folder exists, and the file, with its `-wal`,
    /// `-shm` and `-journal` companions where they exist, is private. SQLite creates the companions with the mode of
    /// the database file, so creating that file 0600 first keeps every one of them private.
    public static func prepareSQLiteFile(at path: String) throws {
        let manager = FileManager.default
        try createFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        if !manager.fileExists(atPath: path) {
            _ = manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: fileMode])
        }
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] where manager.fileExists(atPath: file) {
            try manager.setAttributes([.posixPermissions: fileMode], ofItemAtPath: file)
        }
    }

    /// Creates the private file `path` with `contents()` unless it exists, and answers whether it did. Safe when
    /// several processes start at once: the file appears complete or not at all, and the first one's is kept.
    /// (The contents are written to a private temporary file that is then hard-linked into place: `link(2)` fails
    /// when the target exists.)
    @discardableResult
    public static func createIfMissing(_ path: String, contents: () throws -> String) throws -> Bool {
        guard !FileManager.default.fileExists(atPath: path) else { return false }
        try createFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let temporary = path + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode_t(fileMode))
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { unlink(temporary) }
        let bytes = Array(try contents().utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else { throw POSIXError(.EIO) }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return true
    }
}
