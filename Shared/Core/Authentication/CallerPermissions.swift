import Foundation

/// Which service may call which route of an internal listener: the one table of who calls whom inside the suite
/// (docs/architecture.md, "Who may call what"). A caller is authenticated by its token (`ServiceTokens`); this table
/// authorises it. A route its row does not name is answered 403 `forbidden_caller` before the body is read
/// (`ServiceTokenMiddleware`). The table's paths are the internal listener's routes (the services serve there exactly
/// these, so no route is served that the table does not guard); any other path is that listener's 404. So a leaked token of one service reaches only what that service needs: the portal's
/// (the internet-facing officer application) cannot spend TANs or drain the code buckets, submission's cannot mint
/// teleTANs.
public struct CallerPermissions: Sendable, Equatable {
    /// Caller name (as in `INTERNAL_API_TOKENS`) → the paths it may call. A path segment `{…}` is a route template's
    /// parameter (`/version/v1/authorities/{authorityId}`): it matches any one segment.
    public let routes: [String: Set<String>]
    /// Every path some caller may call: the routes of the internal listener, as the OpenAPI document names them.
    public let paths: Set<String>
    /// The same as `segments(_:)` makes them, per caller and together.
    private let routeSegments: [String: [[String]]]
    private let pathSegments: [[String]]

    public init(_ routes: [String: Set<String>]) {
        self.routes = routes
        paths = Set(routes.values.flatMap { $0 })
        routeSegments = routes.mapValues { $0.map { Self.segments($0, decodingFirst: false) } }
        pathSegments = paths.map { Self.segments($0, decodingFirst: false) }
    }

    /// Whether `caller` may call `path`; a caller or path the table does not name may not. A configured name is its
    /// service's name, or that name, `-` and anything (`submission-next`, the second token of a rotation).
    public func allows(_ caller: String, path: String) -> Bool {
        Self.matches(path, any: routeSegments[Self.service(of: caller)] ?? [])
    }

    /// Whether `path` may reach one of the table's routes, however it is spelled: a path the router could match to a
    /// route (`/version/v1/tans/reserve/`, `//version/v1/tans/reserve`, percent-encoded or in other case, or with an
    /// encoded `/` inside a template's parameter) must be judged as that route, never let through as "no route of this
    /// listener".
    public func guards(_ path: String) -> Bool {
        Self.matches(path, any: pathSegments)
    }

    /// Whether one of the ways a router could read `path` matches one of `routes`: split at `/` then decoded (a
    /// template's parameter may hold `%2F`), or decoded then split.
    static func matches(_ path: String, any routes: [[String]]) -> Bool {
        let readings = [segments(path, decodingFirst: false), segments(path, decodingFirst: true)]
        return readings.contains { reading in routes.contains { route in matches(reading, route: route) } }
    }

    private static func matches(_ segments: [String], route: [String]) -> Bool {
        guard segments.count == route.count else { return false }
        return zip(segments, route).allSatisfy { segment, pattern in segment == pattern || isParameter(pattern) }
    }

    private static func isParameter(_ segment: String) -> Bool {
        segment.hasPrefix("{") && segment.hasSuffix("}")
    }

    /// `path`'s segments without empty ones, percent-encoding or upper case: at least as loose as any router's
    /// matching.
    static func segments(_ path: String, decodingFirst: Bool) -> [String] {
        let decode = { (text: String) in text.removingPercentEncoding ?? text }
        let split = (decodingFirst ? decode(path) : path).split(separator: "/").map(String.init)
        return split.map { (decodingFirst ? $0 : decode($0)).lowercased() }
    }

    /// The service a configured caller name stands for: the name up to its first `-`.
    static func service(of caller: String) -> String {
        String(caller.prefix { $0 != "-" })
    }

    /// The callers that may call `path` (a route of the table, or a path one of its templates matches), sorted.
    public func callers(of path: String) -> [String] {
        routes.keys.filter { allows($0, path: path) }.sorted()
    }
}

extension CallerPermissions {
    /// The callers' names, as the operators configure them in `INTERNAL_API_TOKENS` (docs/operations.md).
    public enum Caller {
        public static let submission = "submission"
        public static let portal = "portal"
        public static let verification = "verification"
    }

    /// Verification's internal listener: submission verifies, reserves, confirms and releases TANs and redeems the
    /// other families' one-time codes for the phones' uploads; the portal issues teleTANs and one-time codes with an
    /// officer's token and administers the health authorities.
    public static let verification = CallerPermissions([
        Caller.submission: [
            "/version/v1/tan/verify", "/version/v1/tans/verify", "/version/v1/tans/reserve", "/version/v1/tans/confirm",
            "/version/v1/tans/release", "/version/v1/codes/redeem",
        ],
        // The health authorities: read with any officer's token, changed with a system administrator's.
        // The officers' codes: issued, listed with their status, expired. The authorities' issuer and signing keys.
        Caller.portal: [
            "/version/v1/tan/teletan", "/version/v1/codes", "/version/v1/codes/issued", "/version/v1/codes/issued/expire",
            "/version/v1/authorities", "/version/v1/authorities/{authorityId}", "/version/v1/issuers", "/version/v1/issuers/{issuerName}",
            "/version/v1/signing-keys", "/version/v1/signing-keys/{keyId}",
        ],
    ])

    /// Test-result's internal listener: verification looks up results for the phones' polls; the portal administers
    /// the labs' credentials for system administrators.
    public static let testResult = CallerPermissions([
        Caller.verification: ["/api/v1/app/result", "/api/v1/app/results"],
        Caller.portal: ["/version/v1/lab-credentials", "/version/v1/lab-credentials/{labId}/{fingerprint}"],
    ])
}
