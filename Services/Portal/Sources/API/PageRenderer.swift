import ExposureCore
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore
import PortalDomain

/// Renders the Mustache templates of `Resources/templates` into HTML responses.
///
/// Every page gets the frame values the layout needs: the texts (`t`), the language, a title and, for a
/// signed-in officer, the name and the CSRF token of the sign-out form.
struct PageRenderer: Sendable {
    struct TemplateMissing: Error {
        let name: String
    }

    private let library: MustacheLibrary
    /// Whether every page shows the maintenance banner (`MAINTENANCE_MODE`).
    private let maintenance: MaintenanceState?

    init(library: MustacheLibrary, maintenance: MaintenanceState? = nil) {
        self.library = library
        self.maintenance = maintenance
    }

    /// Loads the templates shipped with the portal.
    static func bundled(maintenance: MaintenanceState? = nil) async throws -> PageRenderer {
        guard let directory = Bundle.module.url(forResource: "Resources", withExtension: nil)?.appendingPathComponent("templates") else {
            throw TemplateMissing(name: "Resources/templates")
        }
        return PageRenderer(library: try await MustacheLibrary(directory: directory.path), maintenance: maintenance)
    }

    func render(
        _ template: String,
        language: Language,
        title: String,
        session: PortalSession?,
        status: HTTPResponse.Status = .ok,
        values: [String: Any] = [:]
    ) -> Response {
        var context = values
        context["t"] = language.texts
        context["a"] = language.accountTexts
        context["lang"] = language.rawValue
        // The language switcher: each language by its own name, leading back to this page.
        let back = PageLocation.path ?? "/"
        context["languages"] = Language.allCases.map { other -> [String: Any] in
            var link: [String: Any] = [
                "code": other.rawValue, "name": other.name,
                "href": "/language?" + FormEncoding.encode([("set", other.rawValue), ("back", back)]),
            ]
            if other == language { link["current"] = true }
            return link
        }
        context["title"] = title
        if maintenance?.isOn == true { context["maintenance"] = true }
        if let session {
            context["officer"] = session.officer.name
            context["csrf"] = session.csrfToken
            // The navigation, for a session that has finished its steps.
            if session.pendingStep == nil {
                if session.officer.isSystemAdministrator {
                    context["systemAdministrator"] = true
                    context["navAuthorities"] = language.administratorTexts.navigation
                    context["navMaintenance"] = language.administratorTexts.maintenanceNavigation
                    context["navSigningKeys"] = language.signingKeyTexts.navigation
                    context["navLabs"] = language.labCredentialTexts.navigation
                } else if session.officer.isSupervisor {
                    context["supervisor"] = true
                    context["navIssuers"] = language.issuerKeyTexts.navigation
                    context["navSigningKeys"] = language.signingKeyTexts.navigation
                }
                if PortalWeb.mayCheckCodes(session.officer) { context["navCodes"] = language.codeStatusTexts.navigation }
                context["navStatistics"] = language.statisticsTexts.navigation
                if session.officer.source == .local { context["localAccount"] = true }
            }
        }
        guard let html = library.render(context, withTemplate: template) else {
            // A template missing from the bundle is a packaging error, not the officer's.
            preconditionFailure("template \(template) is not in the portal's resources")
        }
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }

    /// A page for a problem, with a link back to the start page.
    func problem(_ error: PortalError, language: Language, session: PortalSession?) -> Response {
        let texts = language.texts
        return render(
            "message",
            language: language,
            title: error.title(texts),
            session: session,
            status: error.status,
            values: ["heading": error.title(texts), "message": error.message(texts), "problem": error.code]
        )
    }
}
