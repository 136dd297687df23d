import Foundation

/// Where the ProteGO Safe download output goes, beside the CWA tree: `<root>/index.txt` and
/// `<root>/<publishedAt>-<nnnnn>.zip` (design sheet protego.md, "Key download"). The apps' key base URL is the CDN's
/// `<root>/`.
public struct ProteGOExportLayout: Sendable, Equatable {
    /// `protego/<region>` by default (`PROTEGO_EXPORT_PATH`).
    public let root: String

    public init(root: String) {
        self.root = root
    }

    public var index: String { root + "/index.txt" }

    /// `<unix seconds, 10 digits>-<batch, 5 digits>.zip`: the Android app's pattern `/?([0-9]{10})-([0-9]{5}).zip`,
    /// whose first number the iOS app reads as the publication time.
    public static func fileName(publishedAt: Int64, number: Int) -> String {
        String(format: "%010lld-%05d.zip", publishedAt, number)
    }

    public func path(ofFile name: String) -> String { root + "/" + name }

    /// The index's text: one `/<name>` per line, oldest first, separated by `\n` (no newline after the last).
    public static func indexText(_ names: [String]) -> String {
        names.map { "/" + $0 }.joined(separator: "\n")
    }
}
