/// How many hashed GUIDs one `/api/v1/app/results` request may ask for.
///
/// The verification service sends the lookups that queue while its connections are busy as one request; at 100
/// the query's bind list and the body (about 7 KB) stay small for both databases and for `MAX_BODY_BYTES`.
public enum ResultLookupBatch {
    public static let maxIDs = 100
}
