import Synchronization

/// Sends the lookups that queue while every request slot is busy as one request.
///
/// "Request" is anything that answers many keys as cheaply as one: an HTTP request to another service, or one
/// statement to the database.
///
/// Every poll asks the test-result service for one result and reads one session from the database. Sent one by
/// one, each lookup costs a whole request (HTTP and JSON on both sides, waking each process; a statement prepared
/// and a round trip to the database), several times the cost of the lookup itself. Here at most `slots` requests
/// are out at once. A lookup that finds a slot free goes at once, alone: at low load nothing waits longer than
/// before. Lookups that find every slot taken queue, and go together, up to `maxBatch` in one request, as soon as a
/// slot frees. There is no timer: batches form only from the queue that load itself creates, as group commit does
/// in a database.
///
/// A lookup that consumes what it finds, such as the redemption of a one-time code, can go through it as well; its
/// `Fetch` then decides which caller gets a key that two callers in one batch asked for.
///
/// The caller that takes a slot leads its batch and sends the request from its own task, so its task-local
/// values (the logger's metadata among them) travel with it; when the answer is in, it hands the slot, with the
/// next batch, to the longest waiter. A batch shared with other callers is sent from a task of its own (which
/// inherits the task-local values but not cancellation), so that cancelling the leader cannot fail the others.
public final class RequestBatcher<Key: Sendable, Value: Sendable>: Sendable {
    /// Looks up `keys` in one request; answers one value per key, in order.
    public typealias Fetch = @Sendable (_ keys: [Key]) async throws -> [Value]

    public struct AnswerCountMismatch: Error, CustomStringConvertible {
        public let asked: Int
        public let answered: Int
        public var description: String { "asked for \(asked) values, got \(answered)" }
    }

    private struct Waiter {
        let key: Key
        let continuation: CheckedContinuation<Role, Never>
    }

    private enum Role {
        case lead(others: [Waiter])
        case answered(Result<Value, any Error>)
    }

    private struct State {
        var busySlots = 0
        var waiting: [Waiter] = []
    }

    private let slots: Int
    private let maxBatch: Int
    private let fetch: Fetch
    private let state = Mutex(State())

    /// - Parameters:
    ///   - slots: requests out at once; the fewer, the larger the batches under load.
    ///   - maxBatch: keys per request at most.
    public init(slots: Int, maxBatch: Int, fetch: @escaping Fetch) {
        precondition(slots > 0 && maxBatch > 0)
        self.slots = slots
        self.maxBatch = maxBatch
        self.fetch = fetch
    }

    public func value(for key: Key) async throws -> Value {
        let role = await withCheckedContinuation { (continuation: CheckedContinuation<Role, Never>) in
            let leads = state.withLock { state in
                guard state.busySlots < slots else {
                    state.waiting.append(Waiter(key: key, continuation: continuation))
                    return false
                }
                state.busySlots += 1
                return true
            }
            if leads { continuation.resume(returning: .lead(others: [])) }
        }
        switch role {
        case .answered(let result):
            return try result.get()
        case .lead(let others):
            return try await lead(key, others: others)
        }
    }

    private func lead(_ key: Key, others: [Waiter]) async throws -> Value {
        // A closure, not `\.key`: a key path into this generic type is built at run time on every call.
        let keys = [key] + others.map { $0.key }
        let outcome: Result<[Value], any Error>
        do {
            let fetch = self.fetch
            let values = others.isEmpty ? try await fetch(keys) : try await Task { try await fetch(keys) }.value
            outcome = values.count == keys.count ? .success(values) : .failure(AnswerCountMismatch(asked: keys.count, answered: values.count))
        } catch {
            outcome = .failure(error)
        }
        handOverSlot()
        for (index, waiter) in others.enumerated() {
            waiter.continuation.resume(returning: .answered(outcome.map { $0[index + 1] }))
        }
        return try outcome.get()[0]
    }

    /// Lookups queued behind busy slots.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Gives the slot, with the next batch, to the longest waiter, or frees it when nobody waits.
    private func handOverSlot() {
        let next: [Waiter]? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.busySlots -= 1
                return nil
            }
            let count = min(maxBatch, state.waiting.count)
            let batch = Array(state.waiting.prefix(count))
            state.waiting.removeFirst(count)
            return batch
        }
        if let next {
            next[0].continuation.resume(returning: .lead(others: Array(next.dropFirst())))
        }
    }
}
