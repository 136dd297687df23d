import ExposureTestSupport
import Foundation
import Testing

extension BrowserResponse: CoverableResponse {
    /// The problem page's kind (`data-problem`), or the code of a JSON error.
    var errorCode: String? {
        PortalBrowser.problem(in: self) ?? ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["error"] as? String
    }

    /// What the portal promises an officer's browser: a redirect says where to, and a refusal is a page that says what
    /// went wrong (a problem page, or a form with its error: sign-in, password, code), or the JSON error of the core's body limit,
    /// which answers before the pages do.
    func expectDocumentedBody(sourceLocation: SourceLocation) {
        if (300..<400).contains(status) {
            #expect(header("Location") != nil, "\(request) \(status) without a Location", sourceLocation: sourceLocation)
        } else if status >= 400 {
            let page = PortalBrowser.problem(in: self) != nil || text.contains(#"id="login-error""#) || text.contains(#"class="error" role="alert""#)
            let json = header("Content-Type")?.hasPrefix("application/json") == true && text.contains(#""error":"#)
            #expect(page || json, "\(request) \(status) says nothing: \(text.prefix(300))", sourceLocation: sourceLocation)
        }
    }
}
