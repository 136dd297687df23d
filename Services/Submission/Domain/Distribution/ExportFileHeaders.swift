import Foundation

/// The HTTP headers a published file is served with, wherever it is served from (`serve`'s own routes or an
/// object store behind a CDN): key files and the signed app configuration are zips, indexes JSON, and the ProteGO
/// output's `index.txt` plain text.
public enum ExportFileHeaders {
    public static func contentType(of data: Data, path: String = "") -> String {
        if data.starts(with: [0x50, 0x4B]) { return "application/zip" }
        return path.hasSuffix(".txt") ? "text/plain; charset=utf-8" : "application/json"
    }

    /// How long a CDN and the apps may keep a file. An immutable key file never changes, but retention removes it
    /// after the 14-day window: a cache keeps it no longer than that. Everything else (indexes, the app
    /// configuration, a running hour's file in development) changes with new hours: five minutes.
    public static func cacheControl(immutable: Bool) -> String {
        immutable ? "public, max-age=1209600, immutable" : "public, max-age=300"
    }
}
