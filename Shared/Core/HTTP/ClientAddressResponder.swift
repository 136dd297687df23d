import Hummingbird
import NIOCore

/// The request context of a listener that resolves client addresses: the connection's context, plus its peer.
/// The core's routers use `BasicRequestContext`, which forgets the connection; this one reads the peer first and
/// keeps the `BasicRequestContext` made from the same source for the router.
public struct ClientAddressRequestContext: InitializableFromSource {
    let basic: BasicRequestContext
    let peer: IPAddress?

    public init(source: ApplicationRequestContextSource) {
        self.basic = BasicRequestContext(source: source)
        self.peer = source.channel.remoteAddress.flatMap { $0.ipAddress }.flatMap { IPAddress($0) }
    }
}

/// Serves a router with `ClientAddress.current` set for the request, as the resolver decides it.
struct ClientAddressResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == BasicRequestContext {
    let inner: Inner
    let resolver: ClientAddressResolver

    func respond(to request: Request, context: ClientAddressRequestContext) async throws -> Response {
        let client = resolver.client(peer: context.peer, forwardedFor: ClientAddressResolver.forwardedFor(request.headers))
        return try await ClientAddress.$current.withValue(client) {
            try await inner.respond(to: request, context: context.basic)
        }
    }
}
