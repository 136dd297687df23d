import Synchronization

/// Values made once per key and kept, shared by concurrent callers.
///
/// For small, bounded key sets worked out on a hot path: a prepared statement's name per statement type, a metric
/// handle per set of dimension values. Nothing is ever evicted.
public final class Memo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Mutex<[Key: Value]>([:])

    public init() {}

    /// The value kept for `key`; `make` builds it on first use, under the memo's lock, so it runs once per key.
    /// It must not call back into the same memo.
    public func value(for key: Key, making make: () -> Value) -> Value {
        values.withLock { values in
            if let value = values[key] { return value }
            let value = make()
            values[key] = value
            return value
        }
    }
}
