/// ISO 3166 alpha-2 country codes, as the apps send them in `origin` and `visitedCountries`.
public enum Countries {
    /// The EU member states and the other EEA states (IS, LI, NO): the countries of the European federation
    /// gateway, the default of `SUPPORTED_COUNTRIES`. Greece is `GR` (ISO), not the EU's `EL`.
    public static let europeanDefault: [String] = [
        "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IS", "IT",
        "LI", "LT", "LU", "LV", "MT", "NL", "NO", "PL", "PT", "RO", "SE", "SI", "SK",
    ]

    /// Two upper-case ASCII letters.
    public static func isAlpha2(_ code: String) -> Bool {
        let utf8 = Array(code.utf8)
        return utf8.count == 2 && utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}
