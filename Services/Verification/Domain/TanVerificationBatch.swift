/// How many TANs one `/version/v1/tans/verify` request may carry.
///
/// The submission service sends the TANs of submissions that queue while its connections are busy as one request;
/// at 100 the UPDATE's bind list and the body (about 4 KB) stay small for both databases and far below the 10,000
/// bytes a request body may have.
public enum TanVerificationBatch {
    public static let maxTANs = 100
}
