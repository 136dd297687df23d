import HTTPTypes
import OpenAPIRuntime

/// Registers only some operations of a document on a transport.
///
/// A service with two listeners (app-facing and internal) registers each operation on exactly one of
/// them, so an internal path asked for on the public port is a plain 404.
public struct PathFilteredTransport<Base: ServerTransport>: ServerTransport {
    private let base: Base
    private let include: @Sendable (String) -> Bool

    public init(_ base: Base, include: @escaping @Sendable (String) -> Bool) {
        self.base = base
        self.include = include
    }

    public func register(
        _ handler: @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
        method: HTTPRequest.Method,
        path: String
    ) throws {
        guard include(path) else { return }
        try base.register(handler, method: method, path: path)
    }
}
