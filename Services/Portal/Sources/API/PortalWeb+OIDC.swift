import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// Sign-in at an OpenID Connect provider (authorization-code flow with state, nonce and PKCE).
extension PortalWeb {
    /// How long a started sign-in may take at the provider.
    static let oidcLoginLifetime: TimeInterval = 600

    func startOIDCLogin(_ request: Request) async throws -> Response {
        guard let oidc else { throw PortalError.notFound }
        let state = random.bytes(count: 32).hexString
        let nonce = random.bytes(count: 32).hexString
        let verifier = PKCE.verifier(using: random)
        let url: URL
        do {
            url = try await oidc.authorizationURL(state: state, nonce: nonce, codeChallenge: PKCE.challenge(for: verifier))
        } catch {
            logger.error("OIDC provider not reachable", metadata: ["error": "\(error)"])
            throw PortalError.unavailable
        }
        try await oidcLogins.save(
            stateHash: SecretHash.sha256Hex(state),
            PendingOIDCLogin(nonce: nonce, codeVerifier: verifier, createdAt: clock.now().epochSeconds)
        )
        var response = redirect(url.absoluteString)
        response.setCookie(cookies.oidcState(state))
        return response
    }

    func finishOIDCLogin(_ request: Request) async throws -> Response {
        guard let oidc else { throw PortalError.notFound }
        let query = request.uri.queryParameters
        let state = query["state"].map(String.init) ?? ""
        let failed = { (reason: String) -> Response in
            self.logger.notice("OIDC sign-in failed", metadata: ["reason": "\(reason)"])
            var response = self.signInAgain(.oidcFailed)
            response.setCookie(self.cookies.clearOIDCState())
            return response
        }
        // The state must come back to the browser that started the sign-in, and only once.
        guard let cookie = request.cookies[cookies.oidcStateName]?.value, !state.isEmpty, SecretHash.constantTimeEquals(cookie, state) else {
            return failed("state does not match this browser")
        }
        guard let pending = try await oidcLogins.take(stateHash: SecretHash.sha256Hex(state)),
              clock.now().timeIntervalSince1970 - Double(pending.createdAt) <= Self.oidcLoginLifetime
        else { return failed("unknown or stale state") }
        if let error = query["error"] { return failed("provider answered \(String(error).prefix(64))") }
        guard let code = query["code"].map(String.init), !code.isEmpty else { return failed("no code") }

        let officer: Officer
        let tokens: OIDCTokenResponse
        do {
            tokens = try await oidc.exchange(code: code, codeVerifier: pending.codeVerifier)
            officer = try await oidc.officer(from: tokens, nonce: pending.nonce)
        } catch {
            return failed("\(error)")
        }
        let sessionTokens = OIDCSessionTokens(
            accessToken: tokens.access_token,
            accessTokenExpiresAt: tokens.accessTokenExpiry(after: clock.now().epochSeconds),
            refreshToken: tokens.refresh_token
        )
        // The provider brought the browser here cross-site, and browsers withhold SameSite=Strict cookies from
        // the whole redirect chain of such a navigation. A page that moves on by itself starts a same-site
        // navigation, which carries the new session cookie.
        let language = language(request)
        let page = pages.render(
            "continue", language: language, title: language.texts.continueTitle, session: nil, values: ["next": "/"]
        )
        var response = try await startSession(for: officer, tokens: sessionTokens, response: page)
        response.setCookie(cookies.clearOIDCState())
        return response
    }

    /// The officer's provider token for verification, refreshed when it is about to expire. Nil when the provider
    /// refuses the refresh: the session is over. A provider that does not answer (down, 5xx) ends nothing: the
    /// officer is asked to try again (`PortalError.unavailable`).
    func currentAccessToken(_ session: PortalSession) async throws -> String? {
        guard let oidc, let tokens = session.oidcTokens else { return nil }
        let now = clock.now().epochSeconds
        guard let expiresAt = tokens.accessTokenExpiresAt, expiresAt - 15 <= now else { return tokens.accessToken }
        guard let refreshToken = tokens.refreshToken else { return nil }
        do {
            let fresh = try await oidc.refresh(refreshToken: refreshToken)
            let updated = OIDCSessionTokens(
                accessToken: fresh.access_token,
                accessTokenExpiresAt: fresh.accessTokenExpiry(after: now),
                refreshToken: fresh.refresh_token ?? refreshToken
            )
            try await sessions.updateTokens(idHash: session.idHash, updated)
            return updated.accessToken
        } catch let refused as OIDCProvider.GrantRefused {
            logger.notice("OIDC token refresh refused: the session ends", metadata: ["error": "\(refused)"])
            return nil
        } catch {
            logger.warning("OIDC token refresh failed: the provider did not answer", metadata: ["error": "\(error)"])
            throw PortalError.unavailable
        }
    }
}
