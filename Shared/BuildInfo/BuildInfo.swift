/// What this build of the executables is: the release version, the commit it was built from and when, as
/// `--version`, the management listener's `/health/live` and the `exposure_build_info` metric say it. The commit and
/// date are written before each build by the BuildInfo plugin (Plugins/BuildInfo), which reads them from git.
public enum BuildInfo {
    /// The release (docs CHANGELOG.md).
    public static let version = "0.1.0"
    /// The commit, abbreviated to 12 hex digits, with `-dirty` when the tree had uncommitted changes to tracked files;
    /// `unknown` when built without git metadata and without a `BUILD_COMMIT` file.
    public static let commit = generatedCommit
    /// When this commit was first built here (UTC, ISO 8601).
    public static let buildDate = generatedBuildDate

    /// One line: `0.1.0 (commit 0123456789ab, built 2026-11-28T12:00:00Z)`.
    public static var description: String { "\(version) (commit \(commit), built \(buildDate))" }
}
