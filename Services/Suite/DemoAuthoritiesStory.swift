import ExposureCore
import Foundation

/// Two health authorities side by side on one installation: an officer of the second authority (`north`, made at the
/// suite's first start) issues a teleTAN that the same verification accepts, and each authority's audit log, what
/// its supervisors read on their Audit page, holds only its own officers' requests.
extension DemoStory {
    /// `auditLog` prints one authority's audit log as `portal-service audit --authority <id>` does.
    func runAuthoritiesStory(auditLog: (String) async throws -> String) async throws {
        print("\n== Two health authorities on one installation")
        guard let user = credentials["NORTH_OFFICER_USER"], let password = credentials["NORTH_OFFICER_PASSWORD"] else {
            // A suite running since before this version: its next start adds the authority and its officer.
            print("(skipped: the running suite's credentials name no officer of a second authority; restart it to add one)")
            return
        }
        let portal = try await DemoPortalSession.signIn(user, password: password, portal: endpoints.portal, http: http).0
        let teleTAN = try await portal.issueTeleTAN()
        print("1. Officer \(user) of the authority north signs in and issues a TEST teleTAN: \(teleTAN)")
        let registration = try await http.postJSON(endpoints.verification + "/version/v1/registrationToken",
                                                   ["key": teleTAN, "keyType": "TELETAN"], headers: [("cwa-fake", "0")])
        try expectDemo(registration.status == 201, "registering north's teleTAN was answered \(registration.status)")
        print("2. A patient's app registers it at the one verification service every authority shares: \(registration.status)")

        let north = Self.officers(in: try await auditLog("north"))
        let home = Self.officers(in: try await auditLog(AuthorityID.default))
        try expectDemo(north.contains(user) && !north.contains("officer"), "north's audit log shows \(north.sorted())")
        try expectDemo(home.contains("officer") && !home.contains(user), "default's audit log shows \(home.sorted())")
        print("3. north's audit log (its supervisors' Audit page) names only its own officers: \(north.sorted().joined(separator: ", "))")
        print("   default's names only its own: \(home.sorted().joined(separator: ", ")); neither shows the other's requests")
        _ = try await portal.form("/logout", [])
    }

    /// The officers an audit listing names (its second column, `local:<name>`).
    static func officers(in listing: String) -> Set<String> {
        Set(listing.split(separator: "\n").dropFirst().compactMap { line in
            line.split(separator: "\t").dropFirst().first.map { String($0.split(separator: ":", maxSplits: 1).last ?? $0) }
        })
    }
}
