import ExposureCore
import Logging
import Portal

await CommandLineTool(
    tool: "portal-service",
    summary: "the web portal where public-health officers issue teleTANs",
    commands: [
        .serve(service: "portal", summary: "migrate the database and serve the portal", configuration: { try PortalConfiguration($0) }, bundle: PortalService.makeBundle),
        .migrate(service: "portal", configuration: { try PortalConfiguration($0) }, migrate: PortalService.migrate),
        .init("users", summary: "local accounts: users add <name> --roles c19hotline,c19hotline_event | list | disable <name> | enable <name> | set-password <name>") { words, settings in
            let configuration = try PortalConfiguration(settings)
            print(try await PortalAdmin.users(words, configuration: configuration, environment: ServiceEnvironment(logger: Logger(label: "exposure.portal"))))
        },
        .init("audit", summary: "the latest teleTAN requests: audit [--limit 100]") { words, settings in
            let configuration = try PortalConfiguration(settings)
            print(try await PortalAdmin.audit(words, configuration: configuration, environment: ServiceEnvironment(logger: Logger(label: "exposure.portal"))))
        },
        .init("signing-key", summary: "create the signing key under DATA_DIR if missing and print where its public key is") { _, settings in
            let configuration = try PortalConfiguration(settings)
            let key = try PortalSigningKey.load(configuration)
            print(key.publicKeyFile ?? key.publicKeyPEM)
        },
    ]
).main()
