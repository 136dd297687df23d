import ExposureBuildInfo

/// The project as a whole: what `--version` prints for every executable, kept in one place so that the five
/// executables cannot disagree.
public enum ExposureSuite {
    /// The release, the commit and the build date (`BuildInfo`), in one line.
    public static let version = BuildInfo.description
}
