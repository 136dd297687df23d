import ArgumentParser
import ExposureCore
import PortalDomain

/// `portal-service audit [--authority id] [--limit n] [--json]`: the latest teleTAN and one-time code requests, newest
/// first, of every health authority or of one.
struct AuditCommand: PortalAdminCommand {
    static let configuration = CommandConfiguration(commandName: "audit", abstract: "List the latest teleTAN requests, newest first.")

    @Option(help: "How many, from 1 to 100000.") var limit = 100
    @Option(help: "Only the requests of this health authority's officers.") var authority: String?
    @OptionGroup var output: ListOutputOptions
    @OptionGroup var settings: SettingsOptions

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit takes a whole number from 1 to 100000, not \(limit)") }
    }

    static func action(_ words: [String]) throws -> any PortalAdminCommand {
        try parse(words: words, as: (any PortalAdminCommand).self)
    }

    func output(in context: PortalAdmin.Context) async throws -> String {
        try await PortalAdmin.audit(limit: limit, in: authority.map(AuthorityScope.authority) ?? .national, context: context, output: output)
    }
}
