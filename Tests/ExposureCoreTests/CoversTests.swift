import ExposureTestSupport
import Testing

/// `Covers.status` fails a test whose marker does not match what it checks, so that a marker cannot claim coverage.
/// The operations here are not literals on purpose: scripts/check-status-coverage.py reads literal markers only, and
/// these claim nothing.
@Suite struct CoversTests {
    struct Answer: CoverableResponse {
        let status: Int
        let request: String
        var errorCode: String? { nil }
        func expectDocumentedBody(sourceLocation: SourceLocation) {}
    }

    static let operation = "POST /version/v1/tan"
    static let template = "GET /static/{file}"

    @Test func aMarkerMatchingTheAnswerPasses() {
        Covers.status(400, of: Self.operation, Answer(status: 400, request: "POST /version/v1/tan"))
        Covers.status(200, of: Self.template, Answer(status: 200, request: "GET /static/portal.css"))
        Covers.status(400, of: Self.operation, among: [Answer(status: 400, request: "POST /version/v1/tan"), Answer(status: 201, request: "POST /other")])
    }

    @Test func aMarkerForAnotherOperationStatusOrCodeFails() {
        withKnownIssue { Covers.status(400, of: Self.operation, Answer(status: 400, request: "POST /version/v1/testresult")) }
        withKnownIssue { Covers.status(400, of: Self.operation, Answer(status: 201, request: "POST /version/v1/tan")) }
        withKnownIssue { Covers.status(400, of: Self.operation, Answer(status: 400, request: "POST /version/v1/tan"), error: "invalid_tan") }
        withKnownIssue { Covers.status(200, of: Self.template, Answer(status: 200, request: "GET /static/a/b")) }
        withKnownIssue { Covers.status(200, of: Self.template, Answer(status: 200, request: "GET /static/")) }
        // A table with no answer to the operation, or one answered otherwise, covers nothing.
        withKnownIssue { Covers.status(400, of: Self.operation, among: [Answer(status: 400, request: "POST /other")]) }
        withKnownIssue {
            Covers.status(400, of: Self.operation, among: [Answer(status: 400, request: "POST /version/v1/tan"), Answer(status: 500, request: "POST /version/v1/tan")])
        }
    }

    @Test func requestsAreNamedWithoutTheirQuery() {
        #expect(Covers.request("GET", "/login/oidc/callback?state=x&code=y") == "GET /login/oidc/callback")
        #expect(Covers.request("POST", "/version/v1/tan") == "POST /version/v1/tan")
    }
}
