/// Runs `body` `count` times at once and returns every result (in no particular order): for tests of races,
/// such as fifty requests spending one TAN.
public func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: T.self) { group in
        for _ in 0..<count { group.addTask { try await body() } }
        return try await group.reduce(into: [T]()) { $0.append($1) }
    }
}
