import ArgumentParser

/// `--live` and `--timeout` of every `healthcheck` command (the services' and the all-in-one suite's).
public struct HealthcheckOptions: ParsableArguments, Sendable {
    @Flag(help: "Ask /health/live (the process answers) instead of /health/ready (its database and the services it calls answer).")
    public var live = false

    @Option(help: ArgumentHelp("The longest the check may take, connecting included: 250ms, 5s, …", valueName: "duration"))
    public var timeout = "5s"

    public init() {}

    public func validate() throws {
        guard let duration = Settings.parseDuration(timeout), duration > .zero else {
            throw ValidationError("--timeout takes a duration such as 250ms or 5s, not '\(timeout)'")
        }
    }

    public var route: HealthProbe.Route { live ? .live : .ready }
    /// What the route answers for: `ready` or `live`, as the command's line says.
    public var state: String { live ? "live" : "ready" }
    public var duration: Duration { Settings.parseDuration(timeout) ?? .seconds(5) }
}
