import HTTPTypes
import Hummingbird

/// Answers only for the configured host names, so that a forged `Host` cannot steer links, redirects or
/// cookies (DNS rebinding, cache poisoning). `X-Forwarded-Host` is refused outright unless a trusted reverse
/// proxy sets it, and then it must name an allowed host too.
struct HostAllowListMiddleware<Context: RequestContext>: RouterMiddleware {
    static var forwardedHost: HTTPField.Name { HTTPField.Name("X-Forwarded-Host")! }
    static var host: HTTPField.Name { HTTPField.Name("Host")! }

    let allowedHosts: Set<String>
    let trustedProxy: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let host = Self.hostName(request.head.authority ?? request.headers[Self.host]), allowedHosts.contains(host) else {
            throw PortalError.unknownHost
        }
        let forwarded = request.headers[values: Self.forwardedHost]
        if !forwarded.isEmpty {
            guard trustedProxy else { throw PortalError.forwardedHostNotTrusted }
            // A chain of proxies lists several; every one must be ours.
            for entry in forwarded.flatMap({ $0.split(separator: ",") }) {
                guard let name = Self.hostName(String(entry)), allowedHosts.contains(name) else { throw PortalError.unknownHost }
            }
        }
        return try await next(request, context)
    }

    /// The host name of a `Host` value, lower-cased, without port (`[::1]:8040` → `[::1]`).
    static func hostName(_ value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty else { return nil }
        if value.hasPrefix("[") {
            guard let end = value.firstIndex(of: "]") else { return nil }
            return String(value[...end])
        }
        return value.split(separator: ":", maxSplits: 1).first.map(String.init)
    }
}
