import ExposureCore
import Foundation
import PortalDomain

/// The teleTAN half of the demo: an officer signs into the portal (a real form login with its CSRF token and
/// cookies, as a browser does), issues a teleTAN, and the patient's phone exchanges it for a TAN and uploads.
extension DemoStory {
    func runTeleTANStory() async throws {
        print("\n== An officer gives a teleTAN to a patient without an electronic result")
        guard let user = credentials["OFFICER_USER"], let password = credentials["OFFICER_PASSWORD"] else {
            throw DemoFailure("no OFFICER_USER and OFFICER_PASSWORD in the credentials file")
        }
        var cookies: [String: String] = [:]
        func remember(_ response: DemoClient.Response) {
            for header in response.headers["Set-Cookie"] {
                let pair = header.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
                if pair.count == 2 { cookies[String(pair[0])] = String(pair[1]) }
            }
        }
        func cookieHeader() -> [(String, String)] {
            cookies.isEmpty ? [] : [("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))]
        }
        func form(_ path: String, _ fields: [(String, String)]) async throws -> DemoClient.Response {
            let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            let response = try await http.send(.POST, endpoints.portal + path, headers: cookieHeader() + [("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8))
            remember(response)
            return response
        }

        let loginPage = try await http.send(.GET, endpoints.portal + "/login")
        remember(loginPage)
        let loggedIn = try await form("/login", [("csrf", Self.hiddenValue("csrf", in: loginPage.text) ?? ""), ("username", user), ("password", password)])
        try expectDemo(loggedIn.status == 303, "signing in was answered \(loggedIn.status)")
        print("1. Officer \(user) signs into the portal: \(loggedIn.status), a session cookie (HttpOnly, SameSite=Strict)")

        let start = try await http.send(.GET, endpoints.portal + "/", headers: cookieHeader())
        try expectDemo(start.status == 200, "the start page was answered \(start.status)")
        let issued = try await form("/teletan", [("csrf", Self.hiddenValue("csrf", in: start.text) ?? ""), ("type", "TEST")])
        guard issued.status == 200, let teleTAN = Self.attribute("data-code", in: issued.text) else {
            throw DemoFailure("issuing a teleTAN was answered \(issued.status)")
        }
        let grouped = Self.element(id: "teletan", in: issued.text) ?? teleTAN
        print("2. The officer asks for a TEST teleTAN and reads it to the patient: \(grouped)")

        let registration = try await http.postJSON(endpoints.verification + "/version/v1/registrationToken",
                                                   ["key": teleTAN, "keyType": "TELETAN"], headers: [("cwa-fake", "0")])
        guard registration.status == 201, let token = registration.json["registrationToken"] as? String else {
            throw DemoFailure("registering the teleTAN was answered \(registration.status): \(registration.text)")
        }
        print("3. The patient types it into the app, which exchanges it for a registration token: \(registration.status)")
        let again = try await http.postJSON(endpoints.verification + "/version/v1/registrationToken",
                                            ["key": teleTAN, "keyType": "TELETAN"], headers: [("cwa-fake", "0")])
        try expectDemo(again.status == 400, "a second registration of the teleTAN was answered \(again.status)")
        print("   (the teleTAN works once: a second registration is answered \(again.status))")

        let tanResponse = try await http.postJSON(endpoints.verification + "/version/v1/tan", ["registrationToken": token], headers: [("cwa-fake", "0")])
        guard tanResponse.status == 201, let tan = tanResponse.json["tan"] as? String else {
            throw DemoFailure("the TAN request was answered \(tanResponse.status)")
        }
        let (payload, _) = try diagnosisKeys(count: 10)
        let uploaded = try await upload(payload, tan: tan)
        try expectDemo(uploaded.status == 200, "the upload was answered \(uploaded.status)")
        print("4. It gets a TAN (\(tanResponse.status)) and uploads 10 keys with it: \(uploaded.status)")

        let loggedOut = try await form("/logout", [("csrf", Self.hiddenValue("csrf", in: start.text) ?? "")])
        print("5. The officer signs out: \(loggedOut.status)")
    }

    /// The value of the first hidden input named `name`.
    static func hiddenValue(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func attribute(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "\(name)=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func element(id: String, in html: String) -> String? {
        guard let open = html.range(of: "id=\"\(id)\""), let close = html[open.upperBound...].range(of: ">") else { return nil }
        return String(html[close.upperBound...].prefix { $0 != "<" })
    }
}
