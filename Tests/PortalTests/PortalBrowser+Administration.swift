import ExposureTestSupport
import Foundation

/// What a supervisor and an officer do on the administration and password pages.
extension PortalBrowser {
    /// Opens `page` (the officers page unless given) for its CSRF token and submits `fields` to `path` with it.
    func administer(_ path: String, _ fields: [(String, String)], from page: String = "/officers") async throws -> BrowserResponse {
        let page = try await get(page)
        return try await post(path, [("csrf", try Self.csrf(in: page))] + fields)
    }

    /// Opens the password page and submits the change.
    func changePassword(from old: String, to new: String, repeated: String? = nil) async throws -> BrowserResponse {
        let page = try await get("/password")
        return try await post("/password", [("csrf", try Self.csrf(in: page)), ("current", old), ("new", new), ("repeat", repeated ?? new)])
    }

    /// The temporary password as the page shows it once.
    static func temporaryPassword(in page: BrowserResponse) throws -> String {
        try capture(#"id="temporary-password"[^>]*>([^<]+)<"#, in: page.text, what: "temporary password")
    }
}
