/// What the shared `serve`, `migrate` and `healthcheck` commands need to know of a service library.
public protocol ServiceDefinition {
    associatedtype Configuration: ServiceConfiguration
    /// The short name, as in the logger label `exposure.<name>`.
    static var name: String { get }
    /// What `serve --help` says the command does.
    static var serveAbstract: String { get }
    static func configuration(_ settings: Settings) throws -> Configuration
    static func makeBundle(_ configuration: Configuration, environment: ServiceEnvironment) async throws -> ServiceBundle
    /// The settings `migrate` reads: the database and logging, none of the service's secrets.
    static func commonSettings(_ settings: Settings) throws -> CommonSettings
    static func migrate(_ common: CommonSettings, environment: ServiceEnvironment) async throws
}
