import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Portal

@Suite struct HostAndHeadersTests {
    @Test(arguments: TestDatabase.all)
    func onlyAllowedHostsAreServed(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let browser = h.browser()
            try #require(try await browser.get("/login").status == 200)
            try #require(try await browser.get("/login", headers: [("Host", "localhost:8040")]).status == 200)
            let foreign = try await browser.get("/login", headers: [("Host", "evil.example")])
            Covers.status(400, of: "GET /login", foreign, error: "unknown-host")
            #expect(foreign.header("Set-Cookie") == nil)
            // Without a trusted proxy, any X-Forwarded-Host is refused, even a harmless-looking one.
            let forwarded = try await browser.get("/login", headers: [("X-Forwarded-Host", "localhost")])
            #expect(forwarded.status == 400)
            #expect(PortalBrowser.problem(in: forwarded) == "forwarded-host")
            // Load balancers reach pods by address: liveness answers for any host. Readiness and metrics are on the
            // management listener only, for any host too.
            try #require(try await browser.get("/health/live", headers: [("Host", "10.1.2.3")]).status == 200)
            #expect(try await browser.get("/health/ready").status == 404)
            #expect(try await browser.get("/metrics").status == 404)
            #expect(try await h.management.get("/health/ready", headers: [("Host", "10.1.2.3")]).status == 200)
            #expect(try await h.management.get("/metrics").status == 200)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aTrustedProxyMayForwardAllowedHostsOnly(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["TRUSTED_PROXY": "true", "ALLOWED_HOSTS": "127.0.0.1", "PUBLIC_URL": "https://portal.example"]) { h in
            let browser = h.browser()
            let page = try await browser.get("/login", headers: [("X-Forwarded-Host", "portal.example")])
            try #require(page.status == 200)
            // Reached over https (TLS ending at the proxy): browsers are told to keep to it.
            #expect(page.header("Strict-Transport-Security") == "max-age=31536000")
            try #require(try await browser.get("/login", headers: [("X-Forwarded-Host", "evil.example")]).status == 400)
            try #require(try await browser.get("/login", headers: [("X-Forwarded-Host", "portal.example, evil.example")]).status == 400)
            // The list is ALLOWED_HOSTS plus the host of PUBLIC_URL: localhost is no longer in it.
            try #require(try await browser.get("/login", headers: [("Host", "localhost")]).status == 400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func secureCookiesWhenConfigured(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["COOKIE_SECURE": "true"]) { h in
            try await h.addOfficer("anna")
            let browser = h.browser()
            let login = try await browser.get("/login")
            #expect(login.header("Set-Cookie")?.contains("Secure") == true)
            let signedIn = try await browser.post("/login", [("csrf", try PortalBrowser.csrf(in: login)), ("username", "anna"), ("password", PortalHarness.password)])
            let cookie = try #require(signedIn.headers["Set-Cookie"].first { $0.hasPrefix("__Host-portal_session=") })
            #expect(cookie.contains("Secure"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
        }
    }

    @Test(arguments: TestDatabase.all)
    func unknownPagesAndStaticFiles(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let browser = h.browser(language: "de")
            let missing = try await browser.get("/does-not-exist")
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(missing.text.contains("Diese Seite gibt es nicht."))
            let css = try await browser.get("/static/portal.css")
            Covers.status(200, of: "GET /static/{file}", css)
            #expect(css.header("Content-Type")?.hasPrefix("text/css") == true)
            try #require(try await browser.get("/static/portal.js").status == 200)
            Covers.status(404, of: "GET /static/{file}", try await browser.get("/static/..%2FPortalService.swift"), error: "not-found")
            // A form body that is not a form is a friendly 400, not a stack trace.
            let odd = try await browser.request(.POST, "/login", headers: [("Content-Type", "application/json")], body: "{}")
            Covers.status(400, of: "POST /login", odd, error: "bad-request")
            #expect(odd.header("Content-Type")?.hasPrefix("text/html") == true)
        }
    }
}
