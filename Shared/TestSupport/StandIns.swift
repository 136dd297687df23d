import ExposureCore
import Hummingbird

extension TestServices {
    /// A bundle of one listener on a free local port, serving `router`: for the stand-ins of other services and
    /// identity providers that tests talk to over real HTTP.
    public static func standIn(
        _ name: String, listener: String, router: Router<BasicRequestContext>, limits: ListenerLimits = ListenerLimits()
    ) -> ServiceBundle {
        let listener = HTTPListener(
            name: listener, address: .init(host: "127.0.0.1", port: 0), router: router, serviceName: name, logger: TestLogger.quiet,
            limits: limits)
        return ServiceBundle(name: name, listeners: [listener], cleanup: {})
    }

    /// The router a stand-in of one of our services starts from: the core's middleware, small bodies, no metrics.
    public static func standInRouter(_ name: String) -> Router<BasicRequestContext> {
        StandardRouter.make(service: name, bodyLimit: .init(maxBytes: 10_000))
    }
}
