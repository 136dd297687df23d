/// A service's configuration, as the commands every service shares (`healthcheck`, `serve`) need it: the settings
/// every service reads the same way, its management listener among them.
public protocol ServiceConfiguration: Sendable {
    var common: CommonSettings { get }

    /// Checks what serving needs beyond what every command of the service reads: the tokens of the services it calls
    /// or answers. `serve` calls it right after reading the settings, before it opens the database, writes a file or
    /// starts a client, so that a missing setting is one line and exit code 2, never a half-started process.
    func checkServing() throws(ConfigurationError)
}

extension ServiceConfiguration {
    public func checkServing() throws(ConfigurationError) {}
}
