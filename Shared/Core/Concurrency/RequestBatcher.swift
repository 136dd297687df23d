import Synchronization

/// Sends the lookups that queue while every request slot is busy as one request.
///
/// "Request" is anything that answers many keys as cheaply as one: an HTTP request to another service, or one
/// statement to the database.
///
/// Every poll asks the test-result service for one result and reads one session from the database. Sent one by
/// one, each lookup costs a whole request (HTTP and JSON on both sides, waking each process; a statement prepared
/// and a round trip to the database), several times the cost of the lookup itself. Here at most `slots` requests
/// are out at once (one more with a spare, below). A lookup that finds a slot free goes at once, alone: at low load
/// nothing waits longer than before. Lookups that find every slot taken queue, and go together, up to `maxBatch` in
/// one request, as soon as a slot frees. There is no timer: batches form only from the queue that load itself
/// creates, as group commit does in a database.
///
/// The fewer the slots, the larger the batches, but with one slot a single slow answer (a retry, a stalled
/// connection) holds every lookup until it ends. With `spareAfter`, a request out for that long stops counting
/// against `slots`, and one more request, the spare, may take the queue: the second way through exists only when it
/// is needed. A timer per request notices the stall, so lookups queued behind it move on even if no other arrives.
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
        case lead(request: Int, others: [Waiter])
        case answered(Result<Value, any Error>)
    }

    private struct State {
        /// The requests out now, by number, and when each was sent.
        var out: [(request: Int, sentAt: ContinuousClock.Instant)] = []
        var lastRequest = 0
        var waiting: [Waiter] = []
    }

    private let slots: Int
    private let maxBatch: Int
    private let spareAfter: Duration?
    private let timers: any MonotonicTimers
    private let spareTaken: @Sendable () -> Void
    private let fetch: Fetch
    private let state = Mutex(State())

    /// - Parameters:
    ///   - slots: requests out at once; the fewer, the larger the batches under load.
    ///   - maxBatch: keys per request at most.
    ///   - spareAfter: when set, a request out for longer than this no longer holds its slot: one more request
    ///     (the spare) may go out, with the lookups queued behind it, so that one slow answer does not hold every
    ///     lookup. At most `slots + 1` requests are out at once.
    ///   - spareTaken: called each time a request goes out beside `slots` stalled ones (for a metric of the callee's
    ///     stalls).
    public convenience init(
        slots: Int, maxBatch: Int, spareAfter: Duration? = nil, spareTaken: @escaping @Sendable () -> Void = {},
        fetch: @escaping Fetch
    ) {
        self.init(
            slots: slots, maxBatch: maxBatch, spareAfter: spareAfter, timers: EventLoopTimers.shared, spareTaken: spareTaken,
            fetch: fetch
        )
    }

    init(
        slots: Int, maxBatch: Int, spareAfter: Duration?, timers: any MonotonicTimers,
        spareTaken: @escaping @Sendable () -> Void = {}, fetch: @escaping Fetch
    ) {
        precondition(slots > 0 && maxBatch > 0)
        self.slots = slots
        self.maxBatch = maxBatch
        self.spareAfter = spareAfter
        self.timers = timers
        self.spareTaken = spareTaken
        self.fetch = fetch
    }

    public func value(for key: Key) async throws -> Value {
        // At low load a slot is free and nobody waits: lead a batch of one at once, without queueing or suspending.
        if let (request, isSpare) = state.withLock({ takeSlotIfIdle(&$0) }) {
            if isSpare { spareTaken() }
            return try await lead(key, request: request, others: [])
        }
        let role = await withCheckedContinuation { (continuation: CheckedContinuation<Role, Never>) in
            let next = state.withLock { state in
                state.waiting.append(Waiter(key: key, continuation: continuation))
                return nextBatch(&state)
            }
            if let next { start(next) }
        }
        switch role {
        case .answered(let result):
            return try result.get()
        case .lead(let request, let others):
            return try await lead(key, request: request, others: others)
        }
    }

    private func lead(_ key: Key, request: Int, others: [Waiter]) async throws -> Value {
        // Without a spare nothing needs to know when a request has been out too long.
        let cancelStallTimer = spareAfter.map { limit in
            timers.schedule(after: limit) { [weak self] in self?.requestStalled() }
        }
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
        cancelStallTimer?()
        handOverSlot(of: request)
        for (index, waiter) in others.enumerated() {
            waiter.continuation.resume(returning: .answered(outcome.map { $0[index + 1] }))
        }
        return try outcome.get()[0]
    }

    /// Lookups queued behind busy slots.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Requests out now, the spare included.
    var requestsOut: Int { state.withLock { $0.out.count } }

    /// The request that ended frees its slot; the longest waiter then leads the next batch, if a slot is free.
    private func handOverSlot(of request: Int) {
        let next = state.withLock { state in
            state.out.removeAll { $0.request == request }
            return nextBatch(&state)
        }
        if let next { start(next) }
    }

    /// A request has been out for `spareAfter`: the lookups queued behind it may go in the spare.
    private func requestStalled() {
        let next = state.withLock { nextBatch(&$0) }
        if let next { start(next) }
    }

    /// Counts a request as out for a caller that need not queue (no one waits, and a request may go now), and
    /// returns its number; with the lock held.
    private func takeSlotIfIdle(_ state: inout State) -> (request: Int, isSpare: Bool)? {
        guard state.waiting.isEmpty else { return nil }
        let now = timers.now()
        guard mayStartRequest(state, now: now) else { return nil }
        return countRequestOut(&state, sentAt: now)
    }

    /// Takes the next batch off the queue, and counts its request as out, when one may go now; with the lock held.
    private func nextBatch(_ state: inout State) -> (request: Int, batch: [Waiter], isSpare: Bool)? {
        guard !state.waiting.isEmpty else { return nil }
        let now = timers.now()
        guard mayStartRequest(state, now: now) else { return nil }
        let count = min(maxBatch, state.waiting.count)
        let batch = Array(state.waiting.prefix(count))
        state.waiting.removeFirst(count)
        let (request, isSpare) = countRequestOut(&state, sentAt: now)
        return (request, batch, isSpare)
    }

    /// Counts one more request as out, sent at `sentAt`; with the lock held.
    private func countRequestOut(_ state: inout State, sentAt: ContinuousClock.Instant) -> (request: Int, isSpare: Bool) {
        let isSpare = state.out.count >= slots
        state.lastRequest += 1
        state.out.append((state.lastRequest, sentAt))
        return (state.lastRequest, isSpare)
    }

    /// Whether a request may go out now: fewer than `slots` of those out are recent, and the spare, if there is one,
    /// is not taken.
    private func mayStartRequest(_ state: State, now: ContinuousClock.Instant) -> Bool {
        guard let spareAfter else { return state.out.count < slots }
        guard state.out.count <= slots else { return false }
        return state.out.count(where: { now - $0.sentAt < spareAfter }) < slots
    }

    private func start(_ next: (request: Int, batch: [Waiter], isSpare: Bool)) {
        if next.isSpare { spareTaken() }
        next.batch[0].continuation.resume(returning: .lead(request: next.request, others: Array(next.batch.dropFirst())))
    }
}
