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
}
