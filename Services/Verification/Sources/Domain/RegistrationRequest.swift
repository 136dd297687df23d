import ExposureCore

/// A registration request after its format was checked: what the key is, before any lookup.
public enum RegistrationKey: Sendable, Equatable {
    /// SHA-256 of a test's GUID, with the optional date-of-birth variant.
    case guid(hashedGUID: String, dobHash: String?)
    case teleTAN(String)

    /// Validates the fields of a registration body. A malformed key is a 400 before any database work; a
    /// teleTAN with a wrong check character is caught here too.
    public static func parse(key: String, keyType: String, keyDob: String?) throws(APIError) -> RegistrationKey {
        switch keyType {
        case "GUID":
            guard Codes.isHashedGUID(key) else {
                throw .badRequest("key must be the SHA-256 of the test's GUID: 64 hexadecimal characters.", code: "invalid_key")
            }
            if let keyDob {
                guard Codes.isHashedGUID(keyDob, allowDobPrefix: true) else {
                    throw .badRequest("keyDob must be 64 characters: an optional x, then hexadecimal.", code: "invalid_key")
                }
                return .guid(hashedGUID: key.lowercased(), dobHash: keyDob.lowercased())
            }
            return .guid(hashedGUID: key.lowercased(), dobHash: nil)
        case "TELETAN":
            guard keyDob == nil else { throw .badRequest("keyDob belongs to GUID registrations only.", code: "invalid_key") }
            guard Codes.isValidTeleTAN(key) else {
                throw .badRequest("key is not a valid teleTAN (check the characters and the check character).", code: "invalid_key")
            }
            return .teleTAN(key)
        default:
            throw .badRequest("keyType must be GUID or TELETAN.", code: "invalid_key_type")
        }
    }
}
