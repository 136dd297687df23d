import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// The maintenance switch of system administrators: every page shows a banner and nothing is issued while it is on
/// (`MaintenanceState`); sign-in, the administration and the statistics go on, and apps are not affected. The
/// operator's `MAINTENANCE_MODE` holds the portal in maintenance whatever the switch says.
extension PortalWeb {
    /// `GET /maintenance`.
    func maintenancePage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .maintenance) { current, _ in
            let language = language(request)
            let texts = language.administratorTexts
            var values: [String: Any] = ["au": texts, "state": maintenance.isOn ? texts.maintenanceOn : texts.maintenanceOff]
            if maintenance.bySetting { values["bySetting"] = true }
            if maintenance.switchedOn { values["switchedOn"] = true }
            if let last = try await settings.value(PortalSettingsStore.maintenance) {
                values["changed"] = PortalTexts.fill(texts.maintenanceChanged, ["name": last.changedBy, "time": language.format.minute(epochSeconds: last.changedAt)])
            }
            return pages.render("maintenance", language: language, title: texts.maintenanceTitle, session: current, values: values)
        }
    }

    /// `POST /maintenance` with `switch=on` or `switch=off`.
    func switchMaintenance(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .maintenance) { current, fields, _ in
            let on: Bool
            switch fields["switch"] {
            case "on": on = true
            case "off": on = false
            default: throw PortalError.badRequest
            }
            let audit = administration(on ? .maintenanceStarted : .maintenanceEnded, by: current, target: nil, detail: nil, authority: nil)
            try await settings.set(PortalSettingsStore.maintenance, to: on ? "on" : "off", audit: audit)
            maintenance.remember(switchedOn: on)
            logger.notice(on ? "maintenance switched on" : "maintenance switched off", metadata: ["administrator": "\(current.officer.name)"])
            return redirect("/maintenance")
        }
    }
}
