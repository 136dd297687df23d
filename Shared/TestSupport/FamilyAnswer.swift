import Foundation
import Testing

/// An answer in an app family's own wire format, whose errors are not the JSON error of the APIs
/// (`CoverableResponse.expectDocumentedBody` of `TestResponse`): `Covers.status(401, of: "POST /new-key-claim",
/// response.as(.plainText))`.
public struct FamilyAnswer: CoverableResponse, Sendable {
    public enum ErrorForm: Sendable {
        /// `text/plain` with a line break at the end, as Go's `http.Error` writes it (CovidShield: `unauthorized\n`).
        case plainText
        /// A Firebase callable function's error: `{"error": {"message": "…", "status": "PERMISSION_DENIED"}}` (ProteGO).
        case firebaseCallable
        /// Google's verification server (ENX): `{"error": "<sentence>", "errorCode": "<code>", "error_code": "<code>"}`,
        /// the last a copy of the second that is always present.
        case enx
    }

    public let answer: TestResponse
    public let form: ErrorForm

    public var status: Int { answer.status }
    public var request: String { answer.request }

    /// The text without its line break (plain text), or the callable's `status` (`INVALID_ARGUMENT`).
    public var errorCode: String? {
        switch form {
        case .plainText: answer.text.hasSuffix("\n") ? String(answer.text.dropLast()) : answer.text
        case .firebaseCallable: (answer.json["error"] as? [String: Any])?["status"] as? String
        case .enx: answer.json["errorCode"] as? String
        }
    }

    /// This answer is `status` in the family's error form, with `code` as its error code.
    public func expectError(_ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, "\(request): \(answer.text.prefix(200))", sourceLocation: sourceLocation)
        expectDocumentedBody(sourceLocation: sourceLocation)
        #expect(errorCode == code, "\(request): \(answer.text.prefix(200))", sourceLocation: sourceLocation)
    }

    public func expectDocumentedBody(sourceLocation: SourceLocation) {
        guard status >= 400 else { return }
        switch form {
        case .plainText:
            #expect(answer.header("Content-Type") == "text/plain; charset=utf-8", "\(request) \(status): not plain text", sourceLocation: sourceLocation)
            #expect(answer.text.hasSuffix("\n") && answer.text.count > 1, "\(request) \(status): \(answer.text)", sourceLocation: sourceLocation)
        case .firebaseCallable:
            #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true, "\(request) \(status): not JSON", sourceLocation: sourceLocation)
            let error = answer.json["error"] as? [String: Any]
            #expect(error?["message"] is String && error?["status"] is String, "\(request) \(status): \(answer.text)", sourceLocation: sourceLocation)
            #expect(answer.json.count == 1, "\(request) \(status): \(answer.text)", sourceLocation: sourceLocation)
        case .enx:
            #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true, "\(request) \(status): not JSON", sourceLocation: sourceLocation)
            let json = answer.json
            #expect(json["error"] is String && json["errorCode"] is String, "\(request) \(status): \(answer.text)", sourceLocation: sourceLocation)
            #expect(json["error_code"] as? String == json["errorCode"] as? String, "\(request) \(status): \(answer.text)", sourceLocation: sourceLocation)
            #expect(json["padding"] == nil || json["codes"] != nil, "\(request) \(status): an error with padding", sourceLocation: sourceLocation)
        }
    }
}

extension TestResponse {
    /// This answer, checked as `form` where `Covers.status` asks for a documented body.
    public func `as`(_ form: FamilyAnswer.ErrorForm) -> FamilyAnswer {
        FamilyAnswer(answer: self, form: form)
    }
}
