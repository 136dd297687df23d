import Testing

/// A response that `Covers.status` can check: what was asked, the status, and the documented body of an error.
public protocol CoverableResponse {
    var status: Int { get }
    /// `METHOD /path`, without the query (`Covers.request`).
    var request: String { get }
    /// Expects the body the documents promise for this response's status (for example the JSON error of the APIs).
    func expectDocumentedBody(sourceLocation: SourceLocation)
    /// The machine-readable code of an error answer (`error` of the JSON error, the problem of a page), if any.
    var errorCode: String? { get }
}

extension TestResponse: CoverableResponse {
    public var errorCode: String? { json["error"] as? String }

    /// Every error of the APIs is `{"error": "<code>", "message": "<text>"}` in JSON (the `Error` schema of
    /// `openapi/*.yaml`); a success's body is the test's own business.
    public func expectDocumentedBody(sourceLocation: SourceLocation) {
        guard status >= 400 else { return }
        // An app family's own answers (CovidShield: a protobuf message carrying its error enum, or plain text), as its
        // own OpenAPI document describes them.
        if let type = header("Content-Type"), type.hasPrefix("application/x-protobuf") || type.hasPrefix("text/plain") {
            #expect(!body.isEmpty, "\(request) \(status): an empty \(type) answer", sourceLocation: sourceLocation)
            return
        }
        #expect(header("Content-Type")?.hasPrefix("application/json") == true, "\(request) \(status): not JSON", sourceLocation: sourceLocation)
        // A Firebase callable's error (the ProteGO Safe family): `{"error": {"message": "…", "status": "<CODE>"}}`.
        if let callable = json["error"] as? [String: Any] {
            #expect((callable["status"] as? String)?.isEmpty == false, "\(request) \(status): no status in \(text)", sourceLocation: sourceLocation)
            #expect(callable["message"] is String, "\(request) \(status): no message in \(text)", sourceLocation: sourceLocation)
            return
        }
        #expect((json["error"] as? String)?.isEmpty == false, "\(request) \(status): no error code in \(text)", sourceLocation: sourceLocation)
        #expect(json["message"] is String, "\(request) \(status): no message in \(text)", sourceLocation: sourceLocation)
    }
}
