import ExposureCore
import ExposureTestSupport
import JWTKit
import Foundation
import Testing
@testable import Portal

@Suite struct OIDCLoginTests {
    /// The portal's public address in these tests; "DNS" (`local`) maps it to the port it listens on.
    static let publicURL = "http://portal.test"

    static func local(_ url: String, _ browser: PortalBrowser) -> String {
        url.replacingOccurrences(of: publicURL, with: browser.baseURL)
    }

    /// Follows the authorization-code flow as a browser would: portal → provider → portal callback.
    static func signIn(_ browser: PortalBrowser) async throws -> BrowserResponse {
        let start = try await browser.get("/login/oidc")
        try #require(start.status == 303)
        let authorize = try #require(start.header("Location"))
        #expect(authorize.contains("code_challenge_method=S256"))
        #expect(authorize.contains("redirect_uri=http://portal.test/login/oidc/callback"))
        let provider = try await browser.get(authorize)
        try #require(provider.status == 302)
        return try await browser.get(local(try #require(provider.header("Location")), browser))
    }

    /// A provider's `expires_in` is trusted only within 0 s to a day: no overflow (a crash) and no token kept for ever.
    @Test func aProvidersTokenLifetimeIsBounded() throws {
        func expiry(_ expiresIn: String) throws -> Int64? {
            let json = #"{"access_token": "a", "expires_in": \#(expiresIn)}"#
            return try JSONDecoder().decode(OIDCTokenResponse.self, from: Data(json.utf8)).accessTokenExpiry(after: 1_000)
        }
        #expect(try expiry("300") == 1_300)
        #expect(try expiry("\(Int.max)") == 1_000 + 86_400)
        #expect(try expiry("-5") == 1_000)
        #expect(try expiry("null") == nil)
    }

    @Test(arguments: TestDatabase.all)
    func anOfficerSignsInAtTheProviderAndIssuesWithTheProvidersToken(kind: TestDatabase) async throws {
        let provider = TestOIDCProvider(roles: ["c19hotline"], clock: ManualClock(Date(timeIntervalSince1970: 1_750_000_000)))
        try await provider.run {
            try await PortalHarness.run(on: kind, portal: ["PUBLIC_URL": Self.publicURL], oidc: provider) { h in
                let browser = h.browser()
                let login = try await browser.get("/login")
                #expect(login.text.contains(#"id="sign-in-oidc""#))
                let callback = try await Self.signIn(browser)
                Covers.status(200, of: "GET /login/oidc/callback", callback)
                #expect(callback.text.contains(#"http-equiv="refresh""#))
                #expect(browser.cookies["portal_session"] != nil)
                let start = try await browser.get("/")
                #expect(start.text.contains(#"id="officer">dr.oidc<"#))
                // Roles came from the access token: TEST only.
                #expect(start.text.contains(#"id="issue-test""#))
                #expect(!start.text.contains(#"id="issue-event""#))

                let page = try await browser.issue("TEST")
                #expect(page.status == 200)
                let teleTAN = try PortalBrowser.shownTeleTAN(in: page).replacingOccurrences(of: " ", with: "")
                try #require(try await h.register(teleTAN: teleTAN).status == 201)
                #expect(try await h.auditRows() == [["officer": "dr.oidc", "teletan_type": "TEST", "outcome": "issued"]])
            }
        }
    }

    /// An expired access token is refreshed before the call to verification. A provider that does not answer the
    /// refresh ends no session: the officer gets a try-again page, keeps the session and is not held by the
    /// per-officer limit, and the next attempt, with the provider back, issues.
    @Test(arguments: TestDatabase.all)
    func anExpiredAccessTokenIsRefreshedBeforeTheCall(kind: TestDatabase) async throws {
        let provider = TestOIDCProvider(accessTokenLifetime: 120, clock: ManualClock(Date(timeIntervalSince1970: 1_750_000_000)))
        try await provider.run {
            try await PortalHarness.run(on: kind, portal: ["PUBLIC_URL": Self.publicURL], oidc: provider) { h in
                let browser = h.browser()
                try #require(try await Self.signIn(browser).status == 200)
                h.clock.advance(by: 600)
                provider.setTokenEndpointDown(true)
                let down = try await browser.issue("TEST")
                #expect(down.status == 503)
                #expect(browser.cookies["portal_session"] != nil)
                provider.setTokenEndpointDown(false)
                let page = try await browser.issue("TEST")
                #expect(page.status == 200)
                #expect(provider.refreshCount == 1)
            }
        }
    }

    /// The provider withdraws its key (rotated out, or revoked after a leak) and publishes another. An ID token signed
    /// with the withdrawn key is refused once the portal's keys are five minutes old; the new key is trusted.
    @Test(arguments: TestDatabase.all)
    func aKeyTheProviderWithdrewIsNoLongerTrusted(kind: TestDatabase) async throws {
        let provider = TestOIDCProvider(clock: ManualClock(Date(timeIntervalSince1970: 1_750_000_000)))
        try await provider.run {
            try await PortalHarness.run(on: kind, portal: ["PUBLIC_URL": Self.publicURL], oidc: provider) { h in
                try #require(try await Self.signIn(h.browser()).status == 200)
                let newKey = ES256PrivateKey()
                provider.setKeys(published: [("key-2", newKey)], signing: ("test-key", provider.key))
                h.clock.advance(by: 301)
                let withdrawn = try await Self.signIn(h.browser())
                #expect(withdrawn.status == 303)
                #expect(withdrawn.header("Location") == "/login?notice=oidc-failed")
                provider.setKeys(published: [("key-2", newKey)], signing: ("key-2", newKey))
                #expect(try await Self.signIn(h.browser()).status == 200)
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func aCallbackWithoutTheStartingBrowsersStateIsRefused(kind: TestDatabase) async throws {
        let provider = TestOIDCProvider(clock: ManualClock(Date(timeIntervalSince1970: 1_750_000_000)))
        try await provider.run {
            try await PortalHarness.run(on: kind, portal: ["PUBLIC_URL": Self.publicURL], oidc: provider) { h in
                // The victim's browser is sent the attacker's callback URL (login CSRF): no state cookie, no session.
                let attacker = h.browser()
                let start = try await attacker.get("/login/oidc")
                Covers.status(303, of: "GET /login/oidc", start)
                let provided = try await attacker.get(try #require(start.header("Location")))
                let callbackURL = Self.local(try #require(provided.header("Location")), attacker)
                let victim = h.browser()
                let refused = try await victim.get(callbackURL)
                Covers.status(303, of: "GET /login/oidc/callback", refused)
                #expect(refused.header("Location") == "/login?notice=oidc-failed")
                #expect(victim.cookies["portal_session"] == nil)
                // Nor can the callback be replayed after its first use.
                try #require(try await attacker.get(callbackURL).status == 200)
                attacker.setCookie("portal_oidc_state", try #require(URLComponents(string: callbackURL)?.queryItems?.first { $0.name == "state" }?.value))
                let replay = try await attacker.get(callbackURL)
                #expect(replay.header("Location") == "/login?notice=oidc-failed")
            }
        }
    }

    /// Whatever goes wrong on the way back from the provider, the browser is sent to sign in again and gets no
    /// session: the provider's own error, no code, a sign-in left longer than ten minutes, a code the provider's
    /// token endpoint does not take. Without OIDC configured its pages do not exist.
    @Test(arguments: TestDatabase.all)
    func aFailureOnTheWayBackSignsNobodyIn(kind: TestDatabase) async throws {
        let provider = TestOIDCProvider(clock: ManualClock(Date(timeIntervalSince1970: 1_750_000_000)))
        try await provider.run {
            try await PortalHarness.run(on: kind, portal: ["PUBLIC_URL": Self.publicURL], oidc: provider) { h in
                /// Starts a sign-in and returns the callback the provider sends the browser to, with or without the
                /// provider's code, and with `extra` added.
                func callback(_ browser: PortalBrowser, keepingCode: Bool = true, adding extra: [URLQueryItem] = []) async throws -> String {
                    let start = try await browser.get("/login/oidc")
                    let provided = try await browser.get(try #require(start.header("Location")))
                    let location = try #require(provided.header("Location"))
                    var url = try #require(URLComponents(string: Self.local(location, browser)))
                    url.queryItems = (url.queryItems ?? []).filter { keepingCode || $0.name != "code" } + extra
                    return try #require(url.string)
                }
                func expectRefused(_ browser: PortalBrowser, _ url: String, _ comment: Comment) async throws {
                    let answer = try await browser.get(url)
                    #expect(answer.status == 303, comment)
                    #expect(answer.header("Location") == "/login?notice=oidc-failed", comment)
                    #expect(browser.cookies["portal_session"] == nil, comment)
                }

                let denied = h.browser()
                // Even beside a code: the provider said no.
                try await expectRefused(denied, try await callback(denied, adding: [URLQueryItem(name: "error", value: "access_denied")]), "provider's error")
                let codeless = h.browser()
                try await expectRefused(codeless, try await callback(codeless, keepingCode: false), "no code")

                let slow = h.browser()
                let late = try await callback(slow)
                provider.clock.advance(by: 601)
                try await expectRefused(slow, late, "after ten minutes")

                provider.setTokenEndpointDown(true)
                let unexchanged = h.browser()
                try await expectRefused(unexchanged, try await callback(unexchanged), "token endpoint down")
                provider.setTokenEndpointDown(false)

                // The same sign-in, nothing wrong with it, goes through.
                let browser = h.browser()
                #expect(try await Self.signIn(browser).status == 200)
                #expect(browser.cookies["portal_session"] != nil)
            }
        }
        try await PortalHarness.run(on: kind) { h in
            var answers: [BrowserResponse] = []
            for path in ["/login/oidc", "/login/oidc/callback?state=x&code=y"] {
                answers.append(try await h.browser().get(path))
            }
            Covers.status(404, of: "GET /login/oidc", among: answers, error: "not-found")
            Covers.status(404, of: "GET /login/oidc/callback", among: answers, error: "not-found")
        }
    }

    /// With `OIDC_AUTHORITY_CLAIM`, a provider account belongs to the one authority its claim names (after the
    /// prefix); a token naming none, or two, signs nobody in.
    @Test(arguments: TestDatabase.all)
    func aTokenNamingNoAuthorityOrTwoSignsNobodyIn(kind: TestDatabase) async throws {
        let settings = ["PUBLIC_URL": Self.publicURL, "OIDC_AUTHORITY_CLAIM": "groups", "OIDC_AUTHORITY_PREFIX": "/authorities/"]
        let cases: [([String]?, String?)] = [
            (["/staff", "/authorities/north"], "north"),
            (["/authorities/north", "/authorities/south"], nil),
            (["/staff", "/authorities/North!"], nil),
            (["/staff"], nil),
            (nil, nil),
        ]
        for (groups, authority) in cases {
            let provider = TestOIDCProvider(groups: groups, clock: ManualClock(Date(timeIntervalSince1970: 1_750_000_000)))
            try await provider.run {
                try await PortalHarness.run(on: kind, portal: settings, oidc: provider) { h in
                    let browser = h.browser()
                    let callback = try await Self.signIn(browser)
                    let stored = try await h.database.withConnection { connection in
                        try await connection.raw("SELECT authority FROM portal_sessions").all().map { try $0.decode(column: "authority", as: String?.self) }
                    }
                    if let authority {
                        #expect(callback.status == 200, "\(groups ?? [])")
                        #expect(stored == [authority])
                    } else {
                        #expect(callback.status == 303, "\(groups ?? [])")
                        #expect(callback.header("Location") == "/login?notice=oidc-failed")
                        #expect(stored.isEmpty && browser.cookies["portal_session"] == nil)
                    }
                }
            }
        }
    }

    /// With `LOCAL_LOGIN=false` the page offers the provider only, and a local account cannot sign in even with its
    /// right password.
    @Test(arguments: TestDatabase.all)
    func withoutLocalLoginOnlyTheProviderSignsIn(kind: TestDatabase) async throws {
        let provider = TestOIDCProvider(clock: ManualClock(Date(timeIntervalSince1970: 1_750_000_000)))
        try await provider.run {
            try await PortalHarness.run(on: kind, portal: ["PUBLIC_URL": Self.publicURL, "LOCAL_LOGIN": "false"], oidc: provider) { h in
                try await h.addOfficer("anna")
                let browser = h.browser()
                let page = try await browser.get("/login")
                #expect(page.text.contains(#"id="sign-in-oidc""#))
                #expect(!page.text.contains(#"id="username""#))
                let refused = try await browser.post("/login", [("csrf", "x"), ("username", "anna"), ("password", PortalHarness.password)])
                Covers.status(404, of: "POST /login", refused, error: "not-found")
                #expect(browser.cookies["portal_session"] == nil)
                #expect(try await Self.signIn(browser).status == 200)
            }
        }
    }

    /// A provider that cannot be reached gets the officer a try-again page at once, and leaves nothing pending.
    @Test(arguments: TestDatabase.all)
    func anUnreachableProviderIsATryAgainPage(kind: TestDatabase) async throws {
        let issuer = "http://127.0.0.1:\(ServiceProcess.freePort())/realms/test"
        // The request to the provider (and its connection) may take ten minutes, far past the test client's 30 s: a
        // page at all proves that the refused connection was not tried again until a timeout.
        let oidc = [
            "OIDC_ISSUER": issuer, "OIDC_CLIENT_ID": "portal", "OIDC_CLIENT_SECRET": "secret", "PUBLIC_URL": Self.publicURL,
            "OIDC_TIMEOUT": "600s", "VERIFICATION_TIMEOUT": "600s",
        ]
        try await PortalHarness.run(on: kind, portal: oidc) { h in
            let browser = h.browser()
            let start = try await browser.get("/login/oidc")
            Covers.status(503, of: "GET /login/oidc", start, error: "unavailable")
            #expect(start.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(browser.cookies["portal_oidc_state"] == nil)
            let pending = try await h.database.withConnection { connection in
                try await connection.raw("SELECT COUNT(*) AS n FROM portal_oidc_logins").first()!.decode(column: "n", as: Int.self)
            }
            #expect(pending == 0)
        }
    }
}
