import ArgumentParser
import ExposureCore

/// `portal-service signing-key`: what verification's `JWT_PUBLIC_KEY_FILES` needs.
struct SigningKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signing-key",
        abstract: "Print the public key of PORTAL_SIGNING_KEY_FILE, for verification's JWT_PUBLIC_KEY_FILES."
    )

    @OptionGroup var settings: SettingsOptions

    func run() async throws {
        let key = try PortalSigningKey.load(try settings.read { try PortalConfiguration($0) })
        print(key.publicKeyPEM, terminator: "")
    }
}
