import Testing

/// A test's claim that it produces one documented status of one operation, checked where it is made.
///
/// `scripts/check-status-coverage.py` lists every operation × status of `openapi/*.yaml` and of the portal's pages and
/// finds these calls in `Tests/` by their literal text, so the status and the operation must be literals:
///
///     let answer = try await h.tan(token)
///     Covers.status(400, of: "POST /version/v1/tan", answer)
///
/// The call fails the test unless `answer` is the answer to that operation (method and path as sent) with that
/// status and the documented body of an error (`CoverableResponse.expectDocumentedBody`), and with `error` its code:
/// a marker cannot sit next to a request for another path, or claim a status the test never saw.
public enum Covers {
    public static func status(
        _ status: Int, of operation: String, _ response: some CoverableResponse, error: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(matches(operation, response.request), "asked \(response.request), marked as \(operation)", sourceLocation: sourceLocation)
        #expect(response.status == status, "\(operation) answered \(response.status), marked as \(status)", sourceLocation: sourceLocation)
        response.expectDocumentedBody(sourceLocation: sourceLocation)
        if let error {
            #expect(response.errorCode == error, "\(operation) \(status)", sourceLocation: sourceLocation)
        }
    }

    /// The same for every answer to `operation` among `responses` (the answers to a table of requests sent in a
    /// loop, all expected to be refused alike), of which there must be at least one.
    public static func status<Response: CoverableResponse>(
        _ status: Int, of operation: String, among responses: [Response], error: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let answers = responses.filter { matches(operation, $0.request) }
        #expect(!answers.isEmpty, "no answer to \(operation) among \(responses.map(\.request))", sourceLocation: sourceLocation)
        for answer in answers {
            Self.status(status, of: operation, answer, error: error, sourceLocation: sourceLocation)
        }
    }

    /// `METHOD /path`, the path without its query: how responses name their request.
    public static func request(_ method: String, _ pathAndQuery: String) -> String {
        "\(method) \(pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")"
    }

    /// Whether a request (`GET /static/portal.css`) is one of an operation (`GET /static/{file}`): a `{name}` segment
    /// of the operation's path matches any one segment.
    static func matches(_ operation: String, _ request: String) -> Bool {
        let expected = operation.split(separator: "/", omittingEmptySubsequences: false)
        let actual = request.split(separator: "/", omittingEmptySubsequences: false)
        guard expected.count == actual.count else { return false }
        return zip(expected, actual).allSatisfy { pattern, segment in
            pattern == segment || (pattern.hasPrefix("{") && pattern.hasSuffix("}") && !segment.isEmpty)
        }
    }
}
