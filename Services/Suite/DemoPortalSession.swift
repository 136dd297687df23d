import Foundation

/// An officer's browser in the demo: a real form login with its CSRF token and cookies, and the forms after it.
final class DemoPortalSession {
    private let http: DemoClient
    private let portal: String
    private var cookies: [String: String] = [:]
    /// The CSRF token of the last page read, which the next form sends.
    private var csrf = ""

    private init(http: DemoClient, portal: String) {
        self.http = http
        self.portal = portal
    }

    /// Signs `user` in; throws when the portal does not answer the login with its redirect.
    static func signIn(_ user: String, password: String, portal: String, http: DemoClient) async throws -> (DemoPortalSession, DemoClient.Response) {
        let session = DemoPortalSession(http: http, portal: portal)
        _ = try await session.get("/login")
        let loggedIn = try await session.form("/login", [("username", user), ("password", password)])
        guard loggedIn.status == 303 else { throw DemoFailure("signing in was answered \(loggedIn.status)") }
        return (session, loggedIn)
    }

    /// A page, read as a browser reads it: its cookies and its CSRF token are kept for the next form.
    @discardableResult
    func get(_ path: String) async throws -> DemoClient.Response {
        let response = try await http.send(.GET, portal + path, headers: cookieHeader())
        remember(response)
        return response
    }

    /// A form of the last page read, with its CSRF token.
    func form(_ path: String, _ fields: [(String, String)]) async throws -> DemoClient.Response {
        let body = ([("csrf", csrf)] + fields)
            .map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        let response = try await http.send(
            .POST, portal + path, headers: cookieHeader() + [("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8)
        )
        remember(response)
        return response
    }

    /// Issues a one-time code of another app family from the start page (`POST /code`).
    func issueCode(kind: String) async throws -> String {
        try await issue("a \(kind) code", "/code", [("kind", kind)])
    }

    /// Issues a TEST teleTAN from the start page (`POST /teletan`).
    func issueTeleTAN() async throws -> String {
        try await issue("a TEST teleTAN", "/teletan", [("type", "TEST")])
    }

    /// The portal gives an officer one code or teleTAN per interval (30 s by default): a refusal for that is waited
    /// out, as an officer would.
    private func issue(_ what: String, _ path: String, _ fields: [(String, String)]) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(90)
        while true {
            try await get("/")
            let issued = try await form(path, fields)
            if issued.status == 200, let code = DemoStory.attribute("data-code", in: issued.text) { return code }
            guard issued.status == 429, ContinuousClock.now < deadline else {
                throw DemoFailure("issuing \(what) was answered \(issued.status)")
            }
            try await Task.sleep(for: .seconds(2))
        }
    }

    private func cookieHeader() -> [(String, String)] {
        cookies.isEmpty ? [] : [("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))]
    }

    private func remember(_ response: DemoClient.Response) {
        for header in response.headers["Set-Cookie"] {
            let pair = header.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
            if pair.count == 2 { cookies[String(pair[0])] = String(pair[1]) }
        }
        if let token = DemoStory.hiddenValue("csrf", in: response.text) { csrf = token }
    }
}
