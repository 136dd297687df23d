import Crypto
@testable import ExposureCore
@testable import ExposureRules
import ExposureTestSupport
import Foundation
import Testing

@Suite struct RateLimitTests {
    @Test func fiftyConcurrentTakesOfOneTokenHaveOneWinner() async throws {
        let clock = ManualClock()
        let bucket = TokenBucket(capacity: 1, refillPerSecond: 1.0 / 60, clock: clock)
        let taken = try await concurrently(50) { bucket.tryTake() }
        #expect(taken.filter { $0 }.count == 1)
    }

    @Test func aTokenGivenBackCanBeTakenAgainButNeverAboveTheCapacity() {
        let clock = ManualClock()
        let bucket = TokenBucket(capacity: 2, refillPerSecond: 1.0 / 60, clock: clock)
        #expect(bucket.tryTake() && bucket.tryTake())
        #expect(!bucket.tryTake())
        bucket.giveBack()
        #expect(bucket.tryTake())
        #expect(!bucket.tryTake())
        clock.advance(by: 3600)
        bucket.giveBack()
        bucket.giveBack()
        #expect(bucket.tryTake() && bucket.tryTake())
        #expect(!bucket.tryTake())
    }

    @Test func sourcesHaveBucketsOfTheirOwn() async throws {
        let clock = ManualClock()
        let limiter = SourceRateLimiter(capacity: 3, refillPerSecond: 1.0 / 60, clock: clock, random: SeededRandomSource(seed: 1))
        let a: [UInt8] = [192, 0, 2, 1], b: [UInt8] = [192, 0, 2, 2]
        let burst = try await concurrently(50) { limiter.tryTake(source: a) }
        #expect(burst.filter { $0 }.count == 3)
        #expect(limiter.tryTake(source: b))
        clock.advance(by: 60)
        #expect(limiter.tryTake(source: a))
        #expect(!limiter.tryTake(source: a))
        limiter.giveBack(source: a)
        #expect(limiter.tryTake(source: a))
    }

    @Test func sourcesAreKeptAsAKeyedHashWhoseKeyRotatesDaily() {
        let clock = ManualClock()
        let source: [UInt8] = [198, 51, 100, 7]
        let one = SourceRateLimiter(capacity: 1, refillPerSecond: 1, clock: clock, random: SeededRandomSource(seed: 1))
        let other = SourceRateLimiter(capacity: 1, refillPerSecond: 1, clock: clock, random: SeededRandomSource(seed: 2))
        let stored = one.storedIdentifier(of: source)
        // Neither the address nor its plain hash, and another process (another key) keeps another value.
        #expect(stored != Data(source))
        #expect(stored != Data(SHA256.hash(data: source)))
        #expect(stored != other.storedIdentifier(of: source))
        clock.advance(by: 86_399)
        #expect(one.storedIdentifier(of: source) == stored)
        _ = one.tryTake(source: source)
        #expect(one.trackedSources == 1)
        clock.advance(by: 1)
        // A new key: the old table cannot be found any more, so it is dropped.
        #expect(one.storedIdentifier(of: source) != stored)
        #expect(one.trackedSources == 0)
    }

    @Test func theTableOfSourcesStaysBounded() {
        let clock = ManualClock()
        let limiter = SourceRateLimiter(capacity: 2, refillPerSecond: 1.0 / 60, maxSources: 100, clock: clock, random: SeededRandomSource(seed: 3))
        for n in 0..<10_000 {
            _ = limiter.tryTake(source: withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) })
            #expect(limiter.trackedSources <= 100)
        }
        // A source that just used its allowance is among the most recent ones and is remembered.
        let recent = withUnsafeBytes(of: UInt32(9_999).bigEndian) { Array($0) }
        #expect(limiter.tryTake(source: recent))
        #expect(!limiter.tryTake(source: recent))
    }

    @Test func oneSourceAtFullSpeedNeverEmptiesTheGlobalBucket() {
        let clock = ManualClock()
        let throttle = GuessThrottle(
            perSource: SourceRateLimiter(capacity: 10, refillPerSecond: 60.0 / 3600, clock: clock, random: SeededRandomSource(seed: 4)),
            global: TokenBucket(capacity: 100, refillPerSecond: 600.0 / 3600, clock: clock)
        )
        let attacker: [UInt8] = [198, 51, 100, 7], patient: [UInt8] = [203, 0, 113, 9]
        // Twice a second for most of a day (the key, and with it every source's bucket, is replaced after a day).
        var decisions: [GuessThrottle.Decision: Int] = [:]
        for _ in 0..<86_000 {
            for _ in 0..<2 { decisions[throttle.take(source: attacker), default: 0] += 1 }
            clock.advance(by: 1)
        }
        #expect(decisions[.refusedGlobally] == nil)
        // Its burst and one a minute.
        let expected = 10 + 86_000 / 60
        let allowed = decisions[.allowed] ?? 0
        #expect(abs(allowed - expected) <= 1)
        #expect(throttle.take(source: patient) == .allowed)
    }

    @Test func aRightGuessIsGivenBackToBothBuckets() {
        let clock = ManualClock()
        let throttle = GuessThrottle(
            perSource: SourceRateLimiter(capacity: 1, refillPerSecond: 1.0 / 3600, clock: clock, random: SeededRandomSource(seed: 5)),
            global: TokenBucket(capacity: 2, refillPerSecond: 1.0 / 3600, clock: clock)
        )
        let a: [UInt8] = [192, 0, 2, 1], b: [UInt8] = [192, 0, 2, 2], c: [UInt8] = [192, 0, 2, 3]
        #expect(throttle.take(source: a) == .allowed)
        throttle.giveBack(source: a)
        #expect(throttle.take(source: a) == .allowed)
        #expect(throttle.take(source: a) == .refusedForSource)
        #expect(throttle.take(source: b) == .allowed)
        #expect(throttle.take(source: c) == .refusedGlobally)
    }

    @Test func addressesParseInTheFormsListenersAndProxiesWrite() throws {
        #expect(IPAddress("192.0.2.1")?.bytes == [192, 0, 2, 1])
        #expect(IPAddress(" 192.0.2.1:8443 ")?.bytes == [192, 0, 2, 1])
        #expect(IPAddress("::ffff:192.0.2.1")?.bytes == [192, 0, 2, 1])
        #expect(IPAddress("[2001:db8::1]:443") == IPAddress("2001:db8::1"))
        #expect(IPAddress("fe80::1%eth0") == IPAddress("fe80::1"))
        #expect(IPAddress("2001:db8::1")?.bytes.count == 16)
        for bad in ["", "unknown", "192.0.2", "192.0.2.256", "2001:db8::1::2", "[2001:db8::1"] { #expect(IPAddress(bad) == nil) }
        // One IPv6 subscriber (a /64) is one source; IPv4 addresses are each their own.
        #expect(IPAddress("2001:db8:1:2::1")?.rateLimitKey == IPAddress("2001:db8:1:2:ffff::9")?.rateLimitKey)
        #expect(IPAddress("2001:db8:1:2::1")?.rateLimitKey != IPAddress("2001:db8:1:3::1")?.rateLimitKey)
        #expect(IPAddress("192.0.2.1")?.rateLimitKey != IPAddress("192.0.2.2")?.rateLimitKey)
    }

    @Test func networksContainTheirAddresses() throws {
        let ten = try #require(IPNetwork("10.0.0.0/8"))
        #expect(ten.contains(try #require(IPAddress("10.200.3.4"))))
        #expect(!ten.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("2001:db8::1"))))
        let one = try #require(IPNetwork("192.0.2.1"))
        #expect(one.contains(IPAddress("192.0.2.1")!))
        #expect(!one.contains(IPAddress("192.0.2.2")!))
        let v6 = try #require(IPNetwork("2001:db8::/33"))
        #expect(v6.contains(IPAddress("2001:db8:7fff::1")!))
        #expect(!v6.contains(IPAddress("2001:db8:8000::1")!))
        #expect(try #require(IPNetwork("::ffff:10.0.0.0/104")).contains(try #require(IPAddress("10.1.2.3"))))
        for bad in ["10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/x", "proxy", "10.0.0.0/8/8"] { #expect(IPNetwork(bad) == nil) }
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() throws {
        let peer = IPAddress("10.0.0.5"), client = IPAddress("198.51.100.7")
        let untrusting = ClientAddressResolver()
        #expect(untrusting.client(peer: peer, forwardedFor: ["203.0.113.9"]) == peer)
        let resolver = ClientAddressResolver(trustedProxies: [IPNetwork("10.0.0.0/8")!])
        #expect(resolver.client(peer: peer, forwardedFor: []) == peer)
        #expect(resolver.client(peer: peer, forwardedFor: ["198.51.100.7"]) == client)
        // What the client wrote itself stands to the left of what the proxies appended, and is not believed.
        #expect(resolver.client(peer: peer, forwardedFor: ["203.0.113.9, 198.51.100.7"]) == client)
        #expect(resolver.client(peer: peer, forwardedFor: ["203.0.113.9", "198.51.100.7, 10.0.0.9"]) == client)
        #expect(resolver.client(peer: peer, forwardedFor: ["junk, 10.0.0.9"]) == IPAddress("10.0.0.9"))
        #expect(resolver.client(peer: IPAddress("192.0.2.1"), forwardedFor: ["198.51.100.7"]) == IPAddress("192.0.2.1"))
    }
}
