/// How long a used test is remembered, which two services must agree on.
///
/// Verification remembers a registered GUID for `USED_KEY_RETENTION`, so that it cannot be registered twice;
/// test-result keeps a result for `RESULT_DELETE_AFTER`. Were the first shorter, a GUID whose result is still kept
/// (and still positive) could be registered again and mint new TANs. Both services therefore read both variables,
/// with this default for each, and refuse to start when `RESULT_DELETE_AFTER` exceeds `USED_KEY_RETENTION`.
public enum UsedTestRetention {
    public static let `default`: Duration = .seconds(60 * 86400)
}
