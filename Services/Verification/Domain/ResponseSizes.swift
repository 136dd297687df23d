/// The fixed size of every app-facing success response, real or fake, per endpoint (bytes of JSON).
///
/// Each is comfortably above the largest unpadded body (a 64-character lab id and a 20-digit `sc` fit), so the
/// padding is never negative and an observer sees one size per endpoint.
public enum ResponseSizes {
    public static let registrationToken = 256
    public static let testResult = 256
    public static let tan = 256
}
