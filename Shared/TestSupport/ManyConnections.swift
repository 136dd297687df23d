import AsyncHTTPClient

/// Runs `body` with an HTTP client that opens up to `connections` connections per host, so that that many requests
/// are really in flight at once (`HTTPClient.shared` opens 8); shuts the client down afterwards.
public func withManyConnections<T: Sendable>(_ connections: Int, _ body: (HTTPClient) async throws -> T) async throws -> T {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
    // Requests beyond `connections` wait for one of them, and that wait is bounded by the connect timeout (10 s by
    // default): hundreds of requests queued on a loaded two-core machine waited longer and failed with
    // `getConnectionFromPoolTimeout` although the service answered every one.
    configuration.timeout.connect = .seconds(90)
    let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    do {
        let result = try await body(http)
        try await http.shutdown()
        return result
    } catch {
        try? await http.shutdown()
        throw error
    }
}

/// Runs `body` once for each element of `inputs`, all at once (released together by a `StartBarrier`), and returns
/// the results in the order of `inputs`.
public func concurrently<Input: Sendable, T: Sendable>(
    over inputs: [Input], _ body: @escaping @Sendable (Input) async throws -> T
) async throws -> [T] {
    let barrier = StartBarrier(inputs.count)
    return try await withThrowingTaskGroup(of: (Int, T).self) { group in
        for (index, input) in inputs.enumerated() {
            group.addTask {
                await barrier.arrive()
                return (index, try await body(input))
            }
        }
        var results = [T?](repeating: nil, count: inputs.count)
        for try await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}
