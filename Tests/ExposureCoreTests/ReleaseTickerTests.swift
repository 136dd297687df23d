import Foundation
import Testing

@testable import ExposureCore

/// The shared clock on whose ticks answers leave (docs/privacy.md, "The tick grid"), driven by hand: each tick runs
/// when the test says, at the instant it says, so lateness and stalls are exact rather than hoped for.
@Suite struct ReleaseTickerTests {
    let timers = HandDrivenTimers()
    let ticker: ReleaseTicker

    init() { ticker = ReleaseTicker(timers: timers) }

    /// Starts an answer waiting for `milliseconds` after the origin, and returns once the ticker holds it.
    func answerWaiting(until milliseconds: Double) async -> Task<ContinuousClock.Instant, Never> {
        let before = ticker.waiting
        let deadline = timers.instant(milliseconds)
        let task = Task { [ticker] in await ticker.wait(until: deadline) }
        while ticker.waiting == before { await Task.yield() }
        return task
    }

    @Test func anAnswerLeavesOnTheFirstTickAtOrAfterItsDeadline() async {
        let answer = await answerWaiting(until: 2.5)
        #expect(timers.pending == [1])
        timers.runTick(at: 1)
        timers.runTick(at: 2)
        #expect(ticker.waiting == 1)
        timers.runTick(at: 3)
        #expect(ticker.waiting == 0)
        #expect(await answer.value == timers.instant(3), "it leaves with the instant of its tick")
    }

    @Test func anAnswerWhoseDeadlineHasPassedStillWaitsForATick() async {
        let answer = await answerWaiting(until: -5)
        #expect(ticker.waiting == 1)
        timers.runTick(at: 1)
        #expect(await answer.value == timers.instant(1))
    }

    @Test func answersDueTogetherLeaveOnOneTickAndLaterOnesStay() async {
        let first = await answerWaiting(until: 0.7)
        let later = await answerWaiting(until: 1.5)
        let second = await answerWaiting(until: 0.2)
        let atTheTick = await answerWaiting(until: 1)
        timers.runTick(at: 1)
        #expect(ticker.waiting == 1)
        for released in [first, second, atTheTick] {
            #expect(await released.value == timers.instant(1))
        }
        timers.runTick(at: 2)
        #expect(await later.value == timers.instant(2))
    }

    @Test func aLateTickDelaysOnlyItself() async {
        let answer = await answerWaiting(until: 0.5)
        timers.runTick(at: 1.4)
        #expect(await answer.value == timers.instant(1.4))
        #expect(timers.pending == [2], "the next tick stays on the grid, not 1 ms after the late one")
        timers.runTick(at: 2.9)
        #expect(timers.pending == [3])
    }

    @Test func afterAStallTheMissedTicksAreSkippedAndTheGridKept() async {
        let answer = await answerWaiting(until: 3)
        timers.runTick(at: 5.3)
        #expect(await answer.value == timers.instant(5.3))
        #expect(timers.pending == [6], "one tick, the next on the grid, not a burst of the missed ones")
        timers.runTick(at: 9)
        #expect(timers.pending == [10], "a tick exactly on a later instant of the grid skips to the one after")
    }

    @Test func theGridArithmetic() {
        let origin = timers.origin
        func tick(_ previous: Double, _ now: Double) -> Double {
            (ReleaseTicker.tick(after: timers.instant(previous), now: timers.instant(now)) - origin) / .milliseconds(1)
        }
        #expect(tick(1, 1) == 2)
        #expect(tick(1, 1.999) == 2)
        #expect(tick(1, 2) == 2, "a tick due now is not skipped")
        #expect(tick(1, 2.001) == 3)
        #expect(tick(1, 1_000.5) == 1_001)
    }

    @Test func theClockStopsASecondAfterTheLastAnswerAndRestartsOnTheNext() async {
        let answer = await answerWaiting(until: 0.5)
        for millisecond in 1...ReleaseTicker.idleTicksBeforeStopping {
            timers.runTick(at: Double(millisecond))
        }
        _ = await answer.value
        #expect(timers.pending.isEmpty, "no tick after a thousand without an answer waiting")

        let next = await answerWaiting(until: 0)
        #expect(timers.pending == [1_001], "a new grid starts a tick after the clock restarts")
        timers.runTick(at: 1_001)
        #expect(await next.value == timers.instant(1_001))
    }

    @Test func anAnswerWaitingKeepsTheClockGoing() async {
        let answer = await answerWaiting(until: 1_500)
        for millisecond in 1...1_500 {
            timers.runTick(at: Double(millisecond))
        }
        #expect(await answer.value == timers.instant(1_500))
        #expect(timers.pending == [1_501])
    }
}
