/// A command that takes service settings on its command line (`@OptionGroup var settings: SettingsOptions`).
public protocol SettingsCommand {
    var settings: SettingsOptions { get }
}
