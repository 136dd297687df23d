/// A service's configuration, as the commands every service shares (`healthcheck`) need it: the settings every
/// service reads the same way, its management listener among them.
public protocol ServiceConfiguration: Sendable {
    var common: CommonSettings { get }
}
