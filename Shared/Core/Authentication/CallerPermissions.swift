import Foundation

/// Which service may call which route of an internal listener: the one table of who calls whom inside the suite
/// (docs/architecture.md, "Who may call what"). A caller is authenticated by its token (`ServiceTokens`); this table
/// authorises it. A route its row does not name is answered 403 `forbidden_caller` before the body is read
/// (`ServiceTokenMiddleware`). The table's paths are the internal listener's routes (the services serve there exactly
/// these, so no route is served that the table does not guard); any other path is that listener's 404. So a leaked token of one service reaches only what that service needs: the portal's
/// (the internet-facing officer application) cannot spend TANs or drain the code buckets, submission's cannot mint
/// teleTANs.
public struct CallerPermissions: Sendable, Equatable {
    /// Caller name (as in `INTERNAL_API_TOKENS`) → the paths it may call.
    public let routes: [String: Set<String>]
    /// Every path some caller may call: the routes of the internal listener.
    public let paths: Set<String>
    /// The same as `normalized(_:)` makes them, per caller and together.
    private let normalizedRoutes: [String: Set<String>]
    private let normalizedPaths: Set<String>

    public init(_ routes: [String: Set<String>]) {
        self.routes = routes
        paths = Set(routes.values.flatMap { $0 })
        normalizedRoutes = routes.mapValues { Set($0.map(Self.normalized)) }
        normalizedPaths = Set(paths.map(Self.normalized))
    }

    /// Whether `caller` may call `path`; a caller or path the table does not name may not. A configured name is its
    /// service's name, or that name, `-` and anything (`submission-next`, the second token of a rotation).
    public func allows(_ caller: String, path: String) -> Bool {
        normalizedRoutes[Self.service(of: caller)]?.contains(Self.normalized(path)) ?? false
    }

    /// Whether `path` may reach one of the table's routes, however it is spelled: a path the router could match to a
    /// route (`/version/v1/tans/reserve/`, `//version/v1/tans/reserve`, percent-encoded or in other case) must be
    /// judged as that route, never let through as "no route of this listener".
    public func guards(_ path: String) -> Bool {
        normalizedPaths.contains(Self.normalized(path))
    }

    /// `path` without empty components, percent-encoding or upper case: at least as loose as any router's matching.
    static func normalized(_ path: String) -> String {
        let decoded = path.removingPercentEncoding ?? path
        return "/" + decoded.split(separator: "/").joined(separator: "/").lowercased()
    }

    /// The service a configured caller name stands for: the name up to its first `-`.
    static func service(of caller: String) -> String {
        String(caller.prefix { $0 != "-" })
    }

    /// The callers that may call `path`, sorted.
    public func callers(of path: String) -> [String] {
        routes.filter { $0.value.contains(path) }.keys.sorted()
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
    /// officer's token.
    public static let verification = CallerPermissions([
        Caller.submission: [
            "/version/v1/tan/verify", "/version/v1/tans/verify", "/version/v1/tans/reserve", "/version/v1/tans/confirm",
            "/version/v1/tans/release", "/version/v1/codes/redeem",
        ],
        Caller.portal: ["/version/v1/tan/teletan", "/version/v1/codes"],
    ])

    /// Test-result's internal listener: verification looks up results for the phones' polls.
    public static let testResult = CallerPermissions([
        Caller.verification: ["/api/v1/app/result", "/api/v1/app/results"],
    ])
}
