import ArgumentParser
import ExposureCore

/// `portal-service signing-key`: what verification's `JWT_PUBLIC_KEY_FILES` needs.
struct SigningKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signing-key",
        abstract: "Create the token-signing key under DATA_DIR if missing and print where its public key is (or the public key itself, with PORTAL_SIGNING_KEY_FILE)."
    )

    @OptionGroup var settings: SettingsOptions

    func run() async throws {
        let key = try PortalSigningKey.load(try settings.read { try PortalConfiguration($0) })
        print(key.publicKeyFile ?? key.publicKeyPEM)
    }
}
