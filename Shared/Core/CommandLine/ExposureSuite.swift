/// The project as a whole: what `--version` prints for every executable, kept in one place so that the five
/// executables cannot disagree.
public enum ExposureSuite {
    public static let version = "0.1.0"
}
