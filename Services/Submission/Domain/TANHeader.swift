import ExposureRules

/// The `cwa-authorization` header: the TAN as a bare UUID.
public enum TANHeader {
    /// The TAN in the lower-case form verification issued it in, or nil when the value is not a UUID v4
    /// (answered 403 without asking verification).
    public static func normalized(_ value: String) -> String? {
        let lowered = value.lowercased()
        return Codes.isUUIDv4(lowered) ? lowered : nil
    }
}
