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
        let (portal, loggedIn) = try await DemoPortalSession.signIn(user, password: password, portal: endpoints.portal, http: http)
        print("1. Officer \(user) signs into the portal: \(loggedIn.status), a session cookie (HttpOnly, SameSite=Strict)")

        let start = try await portal.get("/")
        try expectDemo(start.status == 200, "the start page was answered \(start.status)")
        let issued = try await portal.form("/teletan", [("type", "TEST")])
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

        let loggedOut = try await portal.form("/logout", [])
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
