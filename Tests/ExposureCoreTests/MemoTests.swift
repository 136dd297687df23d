import ExposureCore
import Synchronization
import Testing

@Suite struct MemoTests {
    @Test func eachKeyIsMadeOnceHoweverManyCallersAskAtOnce() async {
        let memo = Memo<Int, String>()
        let made = MakeCounts()
        await withTaskGroup(of: String.self) { group in
            for caller in 0..<200 {
                group.addTask {
                    memo.value(for: caller % 4) {
                        made.counts.withLock { $0[caller % 4, default: 0] += 1 }
                        return "value \(caller % 4)"
                    }
                }
            }
            for await value in group { #expect(value.hasPrefix("value ")) }
        }
        #expect(made.counts.withLock { $0 } == [0: 1, 1: 1, 2: 1, 3: 1])
        #expect(memo.value(for: 2) { "made again" } == "value 2")
    }
}

/// How often each key's value was made; shared with the callers' tasks.
private final class MakeCounts: Sendable {
    let counts = Mutex([Int: Int]())
}
