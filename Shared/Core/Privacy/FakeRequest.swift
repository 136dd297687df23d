import HTTPTypes

/// The `cwa-fake` header every app request carries: `0` real, `1` fake (chaff).
///
/// A missing or other value is refused: allowing it to be absent would let an observer tell real from fake
/// requests by their size.
public enum FakeRequestHeader {
    public static let name = HTTPField.Name("cwa-fake")!

    /// true for a fake request, false for a real one; throws a 400 otherwise.
    public static func isFake(_ value: String?) throws(APIError) -> Bool {
        switch value {
        case "0": return false
        case "1": return true
        default: throw .badRequest("The header cwa-fake must be 0 or 1.", code: "invalid_fake_header")
        }
    }
}
