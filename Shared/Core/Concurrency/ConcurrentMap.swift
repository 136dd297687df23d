extension Array where Element: Sendable {
    /// Transforms every element at once, answering in the array's order. The first error is thrown (the other
    /// transforms are cancelled).
    public func concurrentMap<T: Sendable>(_ transform: @escaping @Sendable (Element) async throws -> T) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for (index, element) in enumerated() {
                group.addTask { (index, try await transform(element)) }
            }
            var results = [T?](repeating: nil, count: count)
            for try await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }
}
