// swift-tools-version:6.2
// ExposureSuite: four services (verification, test-result, submission, portal) on one shared core.
import PackageDescription
#if canImport(Glibc)
import Glibc
#endif

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// How release executables are linked on Linux; together these take 5–7 MB off each service's idle memory
/// (docs/benchmarks.md, docs/decisions.md). The toolchain's static-stdlib link exports every public symbol of
/// every module (`-export-dynamic`), which nothing here looks up at run time; and lld can pack the 150,000
/// relative relocations of a position-independent executable into a few kilobytes (DT_RELR) where gold
/// writes 24 bytes each. glibc applies packed relocations from 2.36 on, so the packing is only asked for when the
/// glibc the binary is built against (in practice the oldest it runs on) has them.
let executableLinkerSettings: [LinkerSetting] = {
    var flags = ["-use-ld=lld", "-Xlinker", "--no-export-dynamic"]
    if glibcAppliesPackedRelocations {
        flags += ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
    }
    return [.unsafeFlags(flags, .when(platforms: [.linux], configuration: .release))]
}()

var glibcAppliesPackedRelocations: Bool {
    #if canImport(Glibc)
    // "glibc 2.36"
    var text = [CChar](repeating: 0, count: 64)
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return false }
    let answer = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let version = answer.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    return version.count >= 2 && (version[0], version[1]) >= (2, 36)
    #else
    return false
    #endif
}

/// A service is three targets:
/// - `<Name>Domain` (`Services/<Folder>/Domain`): its rules. It may depend on `ExposureRules` and on pure libraries
///   (crypto, JWT, protobuf), never on HTTP or storage; `scripts/check-layers.py` and the build's explicit import
///   check fail when a rule imports anything it does not declare here.
/// - `<Name>` (`Services/<Folder>/Sources`): handlers (API/), SQL (Storage/), calls to other services
///   (Downstream/), commands and configuration, over the domain; tests and the all-in-one launcher reuse it.
/// - a thin executable (`Services/<Folder>/Main`) that only runs the command line.
func service(
    _ name: String,
    folder: String,
    executable: String,
    domainDependencies: [Target.Dependency],
    dependencies: [Target.Dependency],
    openAPI: Bool = true,
    resources: [Resource]? = nil
) -> [Target] {
    [
        .target(
            name: "\(name)Domain",
            dependencies: ["ExposureRules"] + domainDependencies,
            path: "Services/\(folder)/Domain",
            swiftSettings: swiftSettings
        ),
        .target(
            name: name,
            dependencies: [
                .target(name: "\(name)Domain"), "ExposureCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + dependencies + (openAPI ? [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
            ] : []),
            path: "Services/\(folder)/Sources",
            resources: resources,
            swiftSettings: swiftSettings,
            plugins: openAPI ? [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")] : []
        ),
        .executableTarget(
            name: executable,
            dependencies: [.target(name: name), "ExposureCore"],
            path: "Services/\(folder)/Main",
            swiftSettings: swiftSettings,
            linkerSettings: executableLinkerSettings
        ),
    ]
}

/// An app family of the submission service (`Services/Submission/Families/<family>`): its OpenAPI document
/// (`openapi.yaml`, a link into openapi/) with handlers, storage and export, over `SubmissionCore` and the rules.
func family(_ family: String, dependencies: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .target(
        name: "Submission\(family)",
        dependencies: [
            "SubmissionCore", "SubmissionDomain", "ExposureCore",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
        ] + dependencies,
        path: "Services/Submission/Families/\(family)",
        resources: resources,
        swiftSettings: swiftSettings,
        plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
    )
}

let package = Package(
    name: "ExposureSuite",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ExposureRules", targets: ["ExposureRules"]),
        .library(name: "ExposureCore", targets: ["ExposureCore"]),
        .library(name: "ExposureProtocol", targets: ["ExposureProtocol"]),
        .library(name: "ExposureNaCl", targets: ["ExposureNaCl"]),
        .executable(name: "verification-service", targets: ["verification-service"]),
        .executable(name: "testresult-service", targets: ["testresult-service"]),
        .executable(name: "submission-service", targets: ["submission-service"]),
        .executable(name: "portal-service", targets: ["portal-service"]),
        .executable(name: "exposure-suite", targets: ["exposure-suite"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", exact: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", exact: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", exact: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", exact: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", exact: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", exact: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-kit.git", exact: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", exact: "4.5.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", exact: "1.13.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-protobuf.git", exact: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", exact: "1.4.0", traits: ["CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", exact: "0.9.20"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
    ],
    targets: [
        // MARK: Shared
        // The pure core beneath every service's rules: codes, hashing, randomness, time, rate limits. No I/O.
        .target(
            name: "ExposureRules",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            path: "Shared/Rules",
            swiftSettings: swiftSettings
        ),
        // NaCl's crypto_box from libsodium (Debian's libsodium-dev), for the CovidShield family's sealed uploads.
        .systemLibrary(
            name: "CSodium",
            path: "Shared/CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .target(
            name: "ExposureNaCl",
            dependencies: ["CSodium", "ExposureRules"],
            path: "Shared/NaCl",
            swiftSettings: swiftSettings
        ),
        // The version, commit and build date of the executables, the last two written by the BuildInfo plugin.
        .target(
            name: "ExposureBuildInfo",
            path: "Shared/BuildInfo",
            swiftSettings: swiftSettings,
            plugins: ["BuildInfo"]
        ),
        .plugin(name: "BuildInfo", capability: .buildTool(), path: "Plugins/BuildInfo"),
        // What every service runs on: HTTP, databases, configuration, lifecycle, observability, clients.
        .target(
            name: "ExposureCore",
            dependencies: [
                "ExposureRules",
                "ExposureBuildInfo",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Shared/Core",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ExposureProtocol",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
            path: "Shared/Protocol",
            exclude: ["proto"],
            swiftSettings: swiftSettings
        ),
        // Generated clients: how one service calls another over HTTP, from openapi/ alone.
        .target(
            name: "TestResultClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            path: "Shared/Clients/TestResultClient",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .target(
            name: "VerificationClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            path: "Shared/Clients/VerificationClient",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // Daily counts every counting service keeps in its database, their API (openapi/statistics.yaml: types,
        // server stubs and the client the portal reads them with) and their CSV form.
        .target(
            name: "ExposureStatistics",
            dependencies: [
                "ExposureCore", "ExposureRules",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            path: "Shared/Statistics",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .target(
            name: "ExposureTestSupport",
            dependencies: [
                "ExposureCore", "ExposureStack", "Portal", "TestResult",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            path: "Shared/TestSupport",
            swiftSettings: swiftSettings
        ),

        // MARK: Services
    ]
    + service("Verification", folder: "Verification", executable: "verification-service", domainDependencies: [
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "JWTKit", package: "jwt-kit"),
    ], dependencies: [
        "TestResultClient",
        "ExposureStatistics",
        "VerificationENX",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "JWTKit", package: "jwt-kit"),
    ])
    + [
        // Verification's app families with their own wire protocol (docs/architecture.md, "Adding an app family"):
        // ENX, Google's verification-server protocol. Its routes are registered by hand (openapi/enx.yaml is the
        // contract; field names match without regard to case, which generated decoders cannot do).
        .target(
            name: "VerificationENX",
            dependencies: [
                "VerificationDomain", "ExposureCore", "ExposureStatistics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            path: "Services/Verification/Families/ENX",
            swiftSettings: swiftSettings
        ),
    ]
    + service("TestResult", folder: "TestResult", executable: "testresult-service", domainDependencies: [], dependencies: [
        "ExposureStatistics",
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
    ])
    + service("Submission", folder: "Submission", executable: "submission-service", domainDependencies: [
        "ExposureProtocol",
        // CovidShield uploads are sealed with NaCl crypto_box.
        "ExposureNaCl",
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "Crypto", package: "swift-crypto"),
        // The LEMON family's device signatures (RSASSA-PKCS1-v1_5) and pre-master secrets (RSA-OAEP), and its JWTs.
        .product(name: "_CryptoExtras", package: "swift-crypto"),
        .product(name: "JWTKit", package: "jwt-kit"),
        // Export files are zips built in memory.
        .product(name: "ZIPFoundation", package: "ZIPFoundation"),
    ], dependencies: [
        "ExposureProtocol",
        "SubmissionCore",
        "SubmissionCovidShield",
        "VerificationClient",
        "ExposureStatistics",
        "SubmissionLemon",
        "SubmissionProteGO",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "ZIPFoundation", package: "ZIPFoundation"),
    ])
    + [
        // What every app family of the submission service is built on (docs/architecture.md, "Adding an app family"): the
        // one key store and the service's schema, the two-phase intake, the clients of verification's TANs and
        // one-time codes, the export tree and signing keys, and the `SubmissionFamily` protocol the service registers
        // each family through.
        .target(
            name: "SubmissionCore",
            dependencies: [
                "SubmissionDomain", "ExposureCore", "ExposureStatistics", "ExposureProtocol", "VerificationClient",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Services/Submission/Core",
            swiftSettings: swiftSettings
        ),
        // The families, one shape each (`Services/Submission/Families/<Family>/`): the family's OpenAPI document and
        // handlers (API/), its tables (Storage/), its download output where it has one (Export/), its settings and
        // `<Family>Family`, over SubmissionCore; its rules are in `Domain/<Family>/`. One target per family because one
        // generator run serves one document.
        family("CovidShield", dependencies: [
            // Uploads are sealed with NaCl crypto_box; key pairs with AES-GCM.
            "ExposureNaCl", "ExposureProtocol", "ExposureStatistics",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SQLKit", package: "sql-kit"),
            .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        ]),
        family("Lemon", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
            // Device signatures (RSASSA-PKCS1-v1_5), pre-master secrets (RSA-OAEP), and its JWTs.
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "SQLKit", package: "sql-kit"),
        ], resources: [.copy("Data")]),
        family("ProteGO", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "SQLKit", package: "sql-kit"),
        ]),
    ]
    + service("Portal", folder: "Portal", executable: "portal-service", domainDependencies: [
        .product(name: "JWTKit", package: "jwt-kit"),
        .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
        // AES-GCM sealing of TOTP secrets, HMAC of recovery codes.
        .product(name: "Crypto", package: "swift-crypto"),
        // Bcrypt runs on NIO's thread pool, off the cooperative pool; no I/O.
        .product(name: "NIOPosix", package: "swift-nio"),
    ], dependencies: [
        "VerificationClient",
        // The labs' credentials, for system administrators.
        "TestResultClient",
        "ExposureStatistics",
        .product(name: "Mustache", package: "swift-mustache"),
        .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
        // RFC 6238 codes of officers' authenticator apps.
        .product(name: "HummingbirdOTP", package: "hummingbird-auth"),
        .product(name: "JWTKit", package: "jwt-kit"),
    ], openAPI: false, resources: [.copy("Resources")])
    + [
        // The one way to start any set of the services with their wiring: the suite, every harness, the
        // end-to-end tests.
        .target(
            name: "ExposureStack",
            dependencies: [
                "ExposureCore", "Verification", "TestResult", "Submission", "Portal",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Services/Stack",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "exposure-suite",
            dependencies: [
                "ExposureCore", "ExposureProtocol", "ExposureStack", "Verification", "TestResult", "Submission", "Portal",
                "SubmissionDomain", "SubmissionLemon", "PortalDomain", "ExposureNaCl", "ExposureRules",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            path: "Services/Suite",
            swiftSettings: swiftSettings,
            linkerSettings: executableLinkerSettings
        ),

        // MARK: Benchmarks
        // The framework ceiling scripts/bench measures every service against (docs/benchmarks.md).
        .executableTarget(
            name: "bench-ceiling",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/Ceiling",
            swiftSettings: swiftSettings,
            linkerSettings: executableLinkerSettings
        ),

        // MARK: Tests
        .testTarget(name: "ExposureCoreTests", dependencies: [
            "ExposureBuildInfo", "ExposureCore", "ExposureRules", "ExposureNaCl", "ExposureStatistics", "ExposureTestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "ExposureProtocolTests", dependencies: ["ExposureProtocol"], swiftSettings: swiftSettings),
        .testTarget(name: "TestResultTests", dependencies: [
            "TestResult", "TestResultDomain", "ExposureStack", "ExposureTestSupport",
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "VerificationTests", dependencies: [
            "Verification", "VerificationDomain", "VerificationENX", "TestResult", "ExposureStack", "ExposureStatistics", "ExposureTestSupport",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Crypto", package: "swift-crypto"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "SubmissionTests", dependencies: [
            "Submission", "SubmissionCore", "SubmissionCovidShield", "SubmissionDomain", "SubmissionProteGO", "Verification", "VerificationDomain", "TestResult", "TestResultDomain",
            "ExposureProtocol", "ExposureNaCl", "ExposureStack", "ExposureTestSupport", "SubmissionLemon",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "SQLKit", package: "sql-kit"),
            // Reads the entries of published zips to compare trees whose signatures differ.
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ], exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "EndToEndTests", dependencies: [
            "ExposureCore", "ExposureProtocol", "ExposureStack", "ExposureTestSupport",
            // FileSettingsTests reads every service's configuration.
            "Verification", "TestResult", "Submission", "Portal",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SQLKit", package: "sql-kit"),
            // Reads published key files independently of the code that writes them.
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "PortalTests", dependencies: [
            "Portal", "PortalDomain", "Verification", "VerificationDomain", "TestResult", "Submission", "SubmissionCore", "ExposureStack", "ExposureStatistics", "ExposureTestSupport",
        ], swiftSettings: swiftSettings),
    ]
)
