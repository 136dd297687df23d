import ExposureCore
import ExposureTestSupport
import Foundation
@testable import PortalDomain
import Testing
@testable import Portal

/// Two-factor sign-in of local accounts: set-up with a QR code and recovery codes, the code after the password, its
/// replay, its throttle, and who must have it.
@Suite struct TwoFactorTests {
    /// RFC 6238's test vectors (appendix B: SHA-1, the secret "12345678901234567890", 8 digits) as an independent
    /// oracle: the 6-digit code of a step is the last six digits of the 8-digit one.
    @Test func codesAreThoseOfRFC6238() {
        let check = TOTPCheck(secret: "12345678901234567890")
        let vectors: [(Int64, String)] = [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
        for (time, code) in vectors {
            #expect(check.code(step: time / 30) == String(code.suffix(6)), "T = \(time)")
            #expect(check.matchingStep(String(code.suffix(6)), now: Date(timeIntervalSince1970: TimeInterval(time))) == time / 30)
        }
    }

    /// The step before and after are taken (a clock a little off), two steps away is not.
    @Test func oneStepEitherSideIsAccepted() {
        let check = TOTPCheck(secret: "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let step = TOTPCheck.step(at: now)
        for delta in [-1, 0, 1] as [Int64] { #expect(check.matchingStep(check.code(step: step + delta), now: now) == step + delta) }
        for delta in [-2, 2] as [Int64] where !([-1, 0, 1] as [Int64]).map({ check.code(step: step + $0) }).contains(check.code(step: step + delta)) {
            #expect(check.matchingStep(check.code(step: step + delta), now: now) == nil)
        }
        #expect(check.matchingStep("", now: now) == nil)
    }

    /// A sealed secret opens only under its key and for its account: one copied to another account's row, or read
    /// without the key, yields nothing. Recovery codes' hashes differ per account and need the key too.
    @Test func aSealedSecretOpensOnlyForItsAccountUnderItsKey() throws {
        let key = SystemRandomSource().bytes(count: TOTPSecretSealer.keyBytes)
        let sealer = TOTPSecretSealer(key: key)
        let sealed = try sealer.seal("ABCDEFGHIJKLMNOPQRSTUVWXYZ", account: "anna")
        #expect(!sealed.contains("ABCDEFGHIJ"))
        #expect(try sealer.open(sealed, account: "anna") == "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        #expect(throws: TOTPSecretSealer.CannotOpen.self) { try sealer.open(sealed, account: "ben") }
        let otherKey = TOTPSecretSealer(key: SystemRandomSource().bytes(count: TOTPSecretSealer.keyBytes))
        #expect(throws: TOTPSecretSealer.CannotOpen.self) { try otherKey.open(sealed, account: "anna") }
        #expect(sealer.recoveryCodeHash("abcdefghij", account: "anna") != sealer.recoveryCodeHash("abcdefghij", account: "ben"))
        #expect(sealer.recoveryCodeHash("abcdefghij", account: "anna") != otherKey.recoveryCodeHash("abcdefghij", account: "anna"))
    }

    @Test func recoveryCodesAreTenDistinctAndTypedLoosely() {
        let codes = RecoveryCodes.generate(using: SystemRandomSource())
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(codes.allSatisfy { $0.count == 11 && $0.dropFirst(5).first == "-" })
        let code = codes[0]
        #expect(RecoveryCodes.normalized(code.uppercased().replacingOccurrences(of: "-", with: " ")) == code.replacingOccurrences(of: "-", with: ""))
        #expect(RecoveryCodes.normalized("123456") == nil)
    }

    /// A supervisor must set up two-factor sign-in before anything else; afterwards each sign-in asks for a code,
    /// which is taken once; a recovery code signs in once.
    @Test(arguments: TestDatabase.all)
    func aSupervisorSetsUpTwoFactorSignInAndNeedsItsCode(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("sofia", roles: "c19supervisor")
            let sofia = h.browser()
            let signIn = try await sofia.signIn("sofia", PortalHarness.password)
            #expect(signIn.header("Location") == "/totp")
            #expect(try await sofia.get("/officers").header("Location") == "/totp")
            #expect(try await sofia.get("/").header("Location") == "/totp")
            let page = try await sofia.get("/totp")
            Covers.status(200, of: "GET /totp", page)
            #expect(page.text.contains("<svg"))
            #expect(page.text.contains(#"id="totp-required""#))
            let check = try TwoFactorHelp.check(in: page)
            // The key is the same on a reload, and sealed in the database.
            #expect(try TwoFactorHelp.key(in: try await sofia.get("/totp")) == TwoFactorHelp.key(in: page))
            #expect(try await TwoFactorHelp.stored(h, "portal_sessions", "totp_enrolment").allSatisfy { !$0.contains(check.secret) })

            let wrong = try await sofia.post("/totp", [("csrf", try PortalBrowser.csrf(in: page)), ("code", "000000" == check.code(step: TOTPCheck.step(at: h.clock.now())) ? "111111" : "000000")])
            Covers.status(400, of: "POST /totp", wrong)
            let forged = try await sofia.post("/totp", [("code", check.code(step: TOTPCheck.step(at: h.clock.now())))])
            Covers.status(403, of: "POST /totp", forged, error: "form-expired")
            let confirmed = try await sofia.post("/totp", [("csrf", try PortalBrowser.csrf(in: page)), ("code", check.code(step: TOTPCheck.step(at: h.clock.now())))])
            Covers.status(200, of: "POST /totp", confirmed)
            let codes = try TwoFactorHelp.recoveryCodes(in: confirmed)
            #expect(codes.count == 10)
            #expect(try await sofia.get("/officers").status == 200)
            #expect(try await h.administrationRows(enrolments: true) == ["sofia totp_enrolled sofia -"])
            // Neither the secret nor a recovery code is stored as it is.
            let stored = try await TwoFactorHelp.stored(h, "portal_users", "totp_secret") + TwoFactorHelp.stored(h, "portal_recovery_codes", "code_hash")
            #expect(stored.count == 11)
            #expect(stored.allSatisfy { value in !value.contains(check.secret) && !codes.contains { value.contains($0.replacingOccurrences(of: "-", with: "")) } })
            let signedOut = try await h.browser().get("/totp")
            Covers.status(303, of: "GET /totp", signedOut)
            #expect(signedOut.header("Location") == "/login")
            Covers.status(303, of: "POST /totp", try await h.browser().post("/totp", [("code", "123456")]))
            Covers.status(303, of: "GET /login/code", try await h.browser().get("/login/code"))
            #expect(try await sofia.get("/totp").header("Location") == "/")

            // The next sign-in asks for a code; the one used to set up is not taken again (replay).
            h.clock.advance(by: 1)
            let again = h.browser()
            #expect(try await again.signIn("sofia", PortalHarness.password).header("Location") == "/login/code")
            #expect(try await again.get("/").header("Location") == "/login/code")
            let codePage = try await again.get("/login/code")
            Covers.status(200, of: "GET /login/code", codePage)
            let current = check.code(step: TOTPCheck.step(at: h.clock.now()))
            let replayed = try await again.post("/login/code", [("csrf", try PortalBrowser.csrf(in: codePage)), ("code", current)])
            Covers.status(401, of: "POST /login/code", replayed)
            let forgedCode = try await again.post("/login/code", [("code", current)])
            Covers.status(403, of: "POST /login/code", forgedCode, error: "form-expired")
            h.clock.advance(by: 30)
            let next = check.code(step: TOTPCheck.step(at: h.clock.now()))
            let passed = try await again.post("/login/code", [("csrf", try PortalBrowser.csrf(in: codePage)), ("code", next)])
            Covers.status(303, of: "POST /login/code", passed)
            #expect(passed.header("Location") == "/")
            #expect(try await again.get("/officers").status == 200)
            // The same code in another sign-in: refused.
            let third = h.browser()
            try await third.signIn("sofia", PortalHarness.password)
            #expect(try await third.post("/login/code", [("csrf", try PortalBrowser.csrf(in: try await third.get("/login/code"))), ("code", next)]).status == 401)

            // A recovery code signs in once.
            let recovered = try await third.post("/login/code", [("csrf", try PortalBrowser.csrf(in: try await third.get("/login/code"))), ("code", codes[3].uppercased())])
            #expect(recovered.header("Location") == "/")
            #expect(try await h.administrationRows().last == "sofia recovery_code_used sofia -")
            let fourth = h.browser()
            try await fourth.signIn("sofia", PortalHarness.password)
            #expect(try await fourth.post("/login/code", [("csrf", try PortalBrowser.csrf(in: try await fourth.get("/login/code"))), ("code", codes[3])]).status == 401)
            #expect(try await TwoFactorStore(database: h.database).unusedRecoveryCodes(name: "sofia") == 9)
        }
    }

    /// Codes count against the name's sign-in attempts: a stolen password does not buy unlimited code guesses.
    @Test(arguments: TestDatabase.all)
    func wrongCodesAreThrottledWithThePassword(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["LOGIN_ATTEMPTS": "3", "LOGIN_ATTEMPT_WINDOW": "10m"]) { h in
            let check = try await TwoFactorHelp.enrolledSupervisor(h, "sofia").check
            h.clock.advance(by: 60)
            let browser = h.browser()
            #expect(try await browser.signIn("sofia", PortalHarness.password).header("Location") == "/login/code")
            let page = try await browser.get("/login/code")
            for _ in 1...2 {
                #expect(try await browser.post("/login/code", [("csrf", try PortalBrowser.csrf(in: page)), ("code", "12345")]).status == 401)
            }
            let throttled = try await browser.post("/login/code", [("csrf", try PortalBrowser.csrf(in: page)), ("code", check.code(step: TOTPCheck.step(at: h.clock.now())))])
            Covers.status(429, of: "POST /login/code", throttled)
            #expect(throttled.header("Retry-After") != nil)
            #expect(try await browser.get("/").header("Location") == "/login/code")
        }
    }

    /// Officers need two-factor sign-in only when the operator says so; an OIDC account never (its provider decides).
    @Test(arguments: TestDatabase.all)
    func officersNeedItWhenTheSettingSaysSo(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("anna")
            #expect(try await h.browser().signIn("anna", PortalHarness.password).header("Location") == "/")
        }
        try await PortalHarness.run(on: kind, portal: ["TOTP_REQUIRED_FOR_OFFICERS": "true"]) { h in
            try await h.addOfficer("anna")
            let anna = h.browser(language: "de")
            #expect(try await anna.signIn("anna", PortalHarness.password).header("Location") == "/totp")
            #expect(try await anna.post("/teletan", [("type", "TEST")]).header("Location") == "/totp")
            let page = try await anna.get("/totp")
            #expect(page.text.contains("<h1>Anmeldung mit zweitem Faktor einrichten</h1>"))
            #expect(page.text.contains(#"aria-label="QR-Code für die Authenticator-App""#))
        }
    }

    /// `users reset-2fa` removes the secret and the recovery codes and ends the sessions: the next sign-in sets up
    /// again.
    @Test(arguments: TestDatabase.all)
    func anOperatorResetsTwoFactorSignIn(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await TwoFactorHelp.enrolledSupervisor(h, "sofia").browser
            let output = try await h.users(["reset-2fa", "sofia"])
            #expect(output == "Reset the two-factor sign-in of sofia; ended 1 session(s); it is set up again at the next sign-in.")
            #expect(try await sofia.get("/").header("Location") == "/login?notice=ended")
            #expect(try await h.rows("portal_recovery_codes") == 0)
            #expect(try await h.browser().signIn("sofia", PortalHarness.password).header("Location") == "/totp")
            await #expect(throws: UsageError.self) { try await h.users(["reset-2fa", "nobody"]) }
        }
    }
}

/// Reading the set-up page and computing codes as the officer's app does.
enum TwoFactorHelp {
    static func key(in page: BrowserResponse) throws -> String {
        try PortalBrowser.capture(#"id="totp-key"[^>]*>([A-Z2-7]+)<"#, in: page.text, what: "TOTP key")
    }

    /// The app's view of the key: its base32 decoded.
    static func check(in page: BrowserResponse) throws -> TOTPCheck {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0, value = 0
        var bytes: [UInt8] = []
        for character in try key(in: page) {
            value = value << 5 | alphabet.firstIndex(of: character)!
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((value >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return TOTPCheck(secret: String(decoding: bytes, as: UTF8.self))
    }

    static func recoveryCodes(in page: BrowserResponse) throws -> [String] {
        let regex = try NSRegularExpression(pattern: #"<li><code>([a-z2-9]{5}-[a-z2-9]{5})</code></li>"#)
        return regex.matches(in: page.text, range: NSRange(page.text.startIndex..., in: page.text)).map {
            String(page.text[Range($0.range(at: 1), in: page.text)!])
        }
    }

    static func stored(_ h: PortalHarness, _ table: String, _ column: String) async throws -> [String] {
        try await h.database.withConnection { connection in
            try await connection.raw("SELECT \(unsafeRaw: column) AS v FROM \(unsafeRaw: table)").all().compactMap { try $0.decode(column: "v", as: String?.self) }
        }
    }

    /// A supervisor signed in with two-factor sign-in set up, and the app's code maker.
    static func enrolledSupervisor(
        _ h: PortalHarness, _ name: String, language: String? = nil, roles: String = "c19supervisor", authority: String? = nil
    ) async throws -> (browser: PortalBrowser, check: TOTPCheck) {
        try await h.addOfficer(name, roles: roles, authority: authority)
        let browser = h.browser(language: language)
        try #require(try await browser.signIn(name, PortalHarness.password).header("Location") == "/totp")
        let page = try await browser.get("/totp")
        let app = try Self.check(in: page)
        let confirmed = try await browser.post("/totp", [("csrf", try PortalBrowser.csrf(in: page)), ("code", app.code(step: TOTPCheck.step(at: h.clock.now())))])
        try #require(confirmed.status == 200, "\(confirmed.text.prefix(500))")
        return (browser, app)
    }
}
