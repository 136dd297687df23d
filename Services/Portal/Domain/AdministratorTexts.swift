/// The texts of the system administrators' pages in one language (`Language.administratorTexts`): the health
/// authorities and the maintenance switch, and the audit page's words for their steps.
public struct AdministratorTexts: Sendable {
    public let navigation: String
    public let title: String
    public let intro: String
    public let columnID: String
    public let columnName: String
    public let columnRegions: String
    public let columnFamilies: String
    public let columnLimits: String
    public let columnState: String
    public let columnActions: String
    public let everyRegion: String
    public let noFamily: String
    public let noLimit: String
    /// "{count} an hour"
    public let perHour: String
    /// "{count} a day"
    public let perDay: String
    /// "{count} per issuer key an hour"
    public let perKeyHour: String
    /// "{count} per issuer key a day"
    public let perKeyDay: String
    public let stateActive: String
    public let stateDisabled: String
    public let disableButton: String
    public let enableButton: String
    /// The legend of a row's form that appoints a supervisor: "A supervisor for {name}".
    public let appointLegend: String
    public let appointName: String
    public let appointButton: String
    /// The summary of a row's settings form: "Change settings".
    public let changeSummary: String
    /// The legend of that form: "Settings of {name}".
    public let changeLegend: String
    public let changeButton: String
    public let addHeading: String
    public let addHint: String
    public let fieldID: String
    public let fieldName: String
    public let fieldRegions: String
    public let fieldFamilies: String
    public let fieldPerHour: String
    public let fieldPerDay: String
    public let fieldPerKeyHour: String
    public let fieldPerKeyDay: String
    public let addButton: String
    public let noAuthorities: String
    /// "{id} was added."
    public let doneAdded: String
    /// "{id} is disabled: …"
    public let doneDisabled: String
    /// "{id} is enabled again."
    public let doneEnabled: String
    /// "{id} is changed. …"
    public let doneChanged: String
    /// The temporary-password page's notice for a supervisor appointed: "{name}" and "{authority}".
    public let supervisorAppointed: String
    public let backToAuthorities: String
    public let systemAdministratorsOnlyTitle: String
    public let notSystemAdministrator: String
    public let refusedInvalidID: String
    public let refusedInvalidName: String
    public let refusedInvalidRegions: String
    public let refusedInvalidLimit: String
    public let refusedExists: String
    public let refusedNoSuchAuthority: String
    public let refusedByVerification: String
    /// The audit page's words for the steps taken here.
    public let actionAuthorityAdded: String
    public let actionAuthorityDisabled: String
    public let actionAuthorityEnabled: String
    public let actionAuthorityLimitsChanged: String
    public let maintenanceNavigation: String
    public let maintenanceTitle: String
    public let maintenanceIntro: String
    public let maintenanceOn: String
    public let maintenanceOff: String
    /// "Switched on by {name} at {time} (UTC)."
    public let maintenanceChanged: String
    /// The state when `MAINTENANCE_MODE` is set: the switch cannot end it.
    public let maintenanceBySetting: String
    public let maintenanceStart: String
    public let maintenanceEnd: String
    public let actionMaintenanceStarted: String
    public let actionMaintenanceEnded: String
    /// Each family, by its name in verification (`cwa`).
    public let families: [String: String]

    /// A family's name in this language (the name verification uses for one it does not know).
    public func family(_ name: String) -> String { families[name] ?? name }
}
