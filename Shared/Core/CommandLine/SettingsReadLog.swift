import Synchronization

/// The variables a configuration asked `Settings` for. A command checks the setting flags it was given against
/// it (`SettingsOptions.read`): a flag that nothing read is a typo or a setting of another service, and saying so
/// beats ignoring it.
public final class SettingsReadLog: Sendable {
    private let variables = Mutex<Set<String>>([])

    public init() {}

    func record(_ variable: String) {
        _ = variables.withLock { $0.insert(variable) }
    }

    public var read: Set<String> { variables.withLock { $0 } }
}
