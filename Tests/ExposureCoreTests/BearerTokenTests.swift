import ExposureCore
import HTTPTypes
import Testing

/// `HTTPFields.bearerToken`, which the statistics readers, the issuers' JWT and the labs' API keys are read through.
@Suite struct BearerTokenTests {
    static func fields(_ authorization: String?) -> HTTPFields {
        var fields = HTTPFields()
        fields[.authorization] = authorization
        return fields
    }

    @Test func theTokenOfABearerHeaderIsReadWhateverTheSchemesCase() {
        #expect(Self.fields("Bearer abc").bearerToken == "abc")
        #expect(Self.fields("bearer abc").bearerToken == "abc")
        #expect(Self.fields("BEARER  abc ").bearerToken == "abc")
    }

    @Test func anotherSchemeAMissingHeaderOrAnEmptyTokenIsNone() {
        for authorization in [nil, "Basic abc", "Bearer", "Bearer ", "Bearer    ", "Bearerabc", "abc"] {
            #expect(Self.fields(authorization).bearerToken == nil, "\(authorization ?? "no header")")
        }
    }
}
