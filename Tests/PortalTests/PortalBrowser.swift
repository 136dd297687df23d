import AsyncHTTPClient
import ExposureTestSupport
import Foundation
import NIOCore
import NIOHTTP1
@testable import PortalDomain

/// A response as the browser received it.
struct BrowserResponse: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]
    /// What was asked: method and path without the query (`POST /login`), for `Covers.status`.
    let request: String

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? { headers.first(name: name) }
}

/// A browser as far as the portal can tell: it keeps cookies, sends forms, does not follow redirects (tests
/// look at them), and reads CSRF tokens and the teleTAN from the pages.
final class PortalBrowser: @unchecked Sendable {
    /// Redirects must reach the test, and the shared client would follow them. Up to 32 connections to one host, so
    /// that the race tests have as many requests really in flight at once.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 32)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    let baseURL: String
    let acceptLanguage: String?
    private let lock = NSLock()
    private var jar: [String: String] = [:]

    init(port: Int, acceptLanguage: String? = nil) {
        self.baseURL = "http://127.0.0.1:\(port)"
        self.acceptLanguage = acceptLanguage
    }

    var cookies: [String: String] { lock.withLock { jar } }

    func setCookie(_ name: String, _ value: String) { lock.withLock { jar[name] = value } }

    func request(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: String? = nil) async throws -> BrowserResponse {
        var request = HTTPClientRequest(url: url.hasPrefix("http") ? url : baseURL + url)
        request.method = method
        if let acceptLanguage { request.headers.add(name: "Accept-Language", value: acceptLanguage) }
        let cookieHeader = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        if !cookieHeader.isEmpty { request.headers.add(name: "Cookie", value: cookieHeader) }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        if let body {
            if !request.headers.contains(name: "Content-Type") {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            }
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await Self.client.execute(request, timeout: .seconds(120))
        let collected = try await response.body.collect(upTo: 4 * 1024 * 1024)
        for header in response.headers[canonicalForm: "Set-Cookie"] { remember(String(header)) }
        return BrowserResponse(
            status: Int(response.status.code), headers: response.headers, body: Array(buffer: collected),
            request: Covers.request(method.rawValue, url.hasPrefix("http") ? URL(string: url)?.path ?? url : url)
        )
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> BrowserResponse {
        try await request(.GET, path, headers: headers)
    }

    func post(_ path: String, _ fields: [(String, String)], headers: [(String, String)] = []) async throws -> BrowserResponse {
        let body = fields.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        return try await request(.POST, path, headers: headers, body: body)
    }

    // MARK: What an officer does

    /// Opens the sign-in page and submits it.
    @discardableResult
    func signIn(_ name: String, _ password: String) async throws -> BrowserResponse {
        let page = try await get("/login")
        return try await post("/login", [("csrf", try Self.csrf(in: page)), ("username", name), ("password", password)])
    }

    /// Opens the start page and submits the form for `type`.
    func issue(_ type: String, healthAuthority: String? = nil) async throws -> BrowserResponse {
        let start = try await get("/")
        var fields = [("csrf", try Self.csrf(in: start)), ("type", type)]
        if let healthAuthority { fields.append(("healthAuthority", healthAuthority)) }
        return try await post("/teletan", fields)
    }

    /// Opens the start page and submits the form of a one-time code of `kind` (`COVIDSHIELD`, `PROTEGO`).
    func issueCode(_ kind: String) async throws -> BrowserResponse {
        let start = try await get("/")
        return try await post("/code", [("csrf", try Self.csrf(in: start)), ("kind", kind)])
    }

    func signOut() async throws -> BrowserResponse {
        let start = try await get("/")
        return try await post("/logout", [("csrf", try Self.csrf(in: start))])
    }

    // MARK: Reading pages

    struct NotOnPage: Error, CustomStringConvertible {
        let what: String
        let page: String
        var description: String { "\(what) not found in: \(page.prefix(2000))" }
    }

    static func csrf(in page: BrowserResponse) throws -> String {
        try capture(#"name="csrf" value="([^"]+)""#, in: page.text, what: "csrf field")
    }

    /// The teleTAN as shown (grouped).
    static func shownTeleTAN(in page: BrowserResponse) throws -> String {
        try capture(#"id="teletan"[^>]*>([^<]+)<"#, in: page.text, what: "teleTAN")
    }

    /// The one-time code as shown (grouped).
    static func shownCode(in page: BrowserResponse) throws -> String {
        try capture(#"id="one-time-code"[^>]*>([^<]+)<"#, in: page.text, what: "one-time code")
    }

    static func problem(in page: BrowserResponse) -> String? {
        try? capture(#"data-problem="([^"]+)""#, in: page.text, what: "problem")
    }

    static func capture(_ pattern: String, in text: String, what: String) throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        guard let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text)
        else { throw NotOnPage(what: what, page: text) }
        return String(text[range])
    }

    // MARK: Cookies

    private func remember(_ header: String) {
        let attributes = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pair = attributes.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals])
        let value = String(pair[pair.index(after: equals)...])
        let expired = attributes.contains { $0.lowercased() == "max-age=0" } || value.isEmpty
        lock.withLock { jar[name] = expired ? nil : value }
    }

    private static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
