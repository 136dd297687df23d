import ExposureRules

/// A registration request after its format was checked: what the key is, before any lookup.
public enum RegistrationKey: Sendable, Equatable {
    /// SHA-256 of a test's GUID, with the optional date-of-birth variant.
    case guid(hashedGUID: String, dobHash: String?)
    case teleTAN(String)

    /// Validates the fields of a registration body. A malformed key is refused before any database work (the API
    /// answers 400); a teleTAN with a wrong check character is caught here too.
    public static func parse(key: String, keyType: String, keyDob: String?) throws(RegistrationKeyError) -> RegistrationKey {
        switch keyType {
        case "GUID":
            guard Codes.isHashedGUID(key) else {
                throw RegistrationKeyError(code: .invalidKey, message: "key must be the SHA-256 of the test's GUID: 64 hexadecimal characters.")
            }
            if let keyDob {
                guard Codes.isHashedGUID(keyDob, allowDobPrefix: true) else {
                    throw RegistrationKeyError(code: .invalidKey, message: "keyDob must be 64 characters: an optional x, then hexadecimal.")
                }
                return .guid(hashedGUID: key.lowercased(), dobHash: keyDob.lowercased())
            }
            return .guid(hashedGUID: key.lowercased(), dobHash: nil)
        case "TELETAN":
            guard keyDob == nil else { throw RegistrationKeyError(code: .invalidKey, message: "keyDob belongs to GUID registrations only.") }
            guard Codes.isValidTeleTAN(key) else {
                throw RegistrationKeyError(code: .invalidKey, message: "key is not a valid teleTAN (check the characters and the check character).")
            }
            return .teleTAN(key)
        default:
            throw RegistrationKeyError(code: .invalidKeyType, message: "keyType must be GUID or TELETAN.")
        }
    }
}
