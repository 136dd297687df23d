import Crypto
@testable import ExposureCore
@testable import ExposureRules
import ExposureTestSupport
import Foundation
import Testing

/// The simulations of a day of guessing below take seconds of CPU each. They yield every few hundred takes: a test
/// runs on Swift's cooperative thread pool, which has one thread per core, and two simulations that never yielded
/// held both threads of a two-core machine for half a minute, so that a database race test of another suite beside
/// them ran into its 30 s `DATABASE_TIMEOUT`.
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

    @Test func theTableOfSourcesStaysBounded() async {
        let clock = ManualClock()
        let limiter = SourceRateLimiter(capacity: 2, refillPerSecond: 1.0 / 60, maxSources: 100, clock: clock, random: SeededRandomSource(seed: 3))
        for n in 0..<10_000 {
            _ = limiter.tryTake(source: withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) })
            #expect(limiter.trackedSources <= 100)
            if n % 500 == 0 { await Task.yield() }
        }
        // A source that just used its allowance is among the most recent ones and is remembered.
        let recent = withUnsafeBytes(of: UInt32(9_999).bigEndian) { Array($0) }
        #expect(limiter.tryTake(source: recent))
        #expect(!limiter.tryTake(source: recent))
    }

    /// An origin whose source and network are the same bytes: one address alone in its network.
    static func alone(_ address: [UInt8]) -> GuessThrottle.Origin { .init(source: address, network: address) }

    @Test func oneSourceAtFullSpeedNeverEmptiesTheGlobalBucket() async {
        let clock = ManualClock()
        let throttle = GuessThrottle(
            perSource: SourceRateLimiter(capacity: 10, refillPerSecond: 60.0 / 3600, clock: clock, random: SeededRandomSource(seed: 4)),
            global: TokenBucket(capacity: 100, refillPerSecond: 600.0 / 3600, clock: clock)
        )
        let attacker: [UInt8] = [198, 51, 100, 7], patient: [UInt8] = [203, 0, 113, 9]
        // Twice a second for most of a day (the key, and with it every source's bucket, is replaced after a day).
        var decisions: [GuessThrottle.Decision: Int] = [:]
        for second in 0..<86_000 {
            for _ in 0..<2 { decisions[throttle.take(Self.alone(attacker)), default: 0] += 1 }
            clock.advance(by: 1)
            if second % 500 == 0 { await Task.yield() }
        }
        #expect(decisions[.refusedGlobally] == nil)
        // Its burst and one a minute.
        let expected = 10 + 86_000 / 60
        let allowed = decisions[.allowed(.shared)] ?? 0
        #expect(abs(allowed - expected) <= 1)
        #expect(throttle.take(Self.alone(patient)) == .allowed(.shared))
    }

    @Test func aRightGuessIsGivenBackToBothBuckets() {
        let clock = ManualClock()
        let throttle = GuessThrottle(
            perSource: SourceRateLimiter(capacity: 1, refillPerSecond: 1.0 / 3600, clock: clock, random: SeededRandomSource(seed: 5)),
            global: TokenBucket(capacity: 2, refillPerSecond: 1.0 / 3600, clock: clock)
        )
        let a = Self.alone([192, 0, 2, 1]), b = Self.alone([192, 0, 2, 2]), c = Self.alone([192, 0, 2, 3])
        #expect(throttle.take(a) == .allowed(.shared))
        throttle.giveBack(a, pool: .shared)
        #expect(throttle.take(a) == .allowed(.shared))
        #expect(throttle.take(a) == .refusedForSource)
        #expect(throttle.take(b) == .allowed(.shared))
        #expect(throttle.take(c) == .refusedGlobally)
    }

    /// An IPv6 site holds 65,536 /64s in its /48: each its own source, but all one network, whose allowance is below
    /// the shared one. Guessing from all of them at full speed for most of a day locks out nobody elsewhere.
    @Test func oneNetworkOfManySourcesNeverEmptiesTheSharedBucket() async throws {
        let clock = ManualClock()
        let throttle = GuessLimits.teleTANs.makeThrottle(clock: clock, random: SeededRandomSource(seed: 6))
        let site = try #require(IPAddress("2001:db8:5::1"))
        func slash64(_ n: Int) -> GuessThrottle.Origin {
            // The /48's 6 bytes, 2 bytes of subnet, then an interface.
            GuessThrottle.Origin(IPAddress(bytes: Array(site.bytes.prefix(6)) + [UInt8(n >> 8), UInt8(n & 0xFF)] + Array(repeating: 0, count: 8)))
        }
        var allowed = 0
        for step in 0..<8_600 {
            for n in 0..<50 {
                if case .allowed = throttle.take(slash64((step * 50 + n) % 65_536)) { allowed += 1 }
            }
            clock.advance(by: 10)
            if step % 20 == 0 { await Task.yield() }
        }
        #expect(allowed <= GuessLimits.teleTANs.network.lookups(inHours: 24))
        // Only its network's burst and refill got through, and the patient of another network is served from the
        // shared bucket.
        #expect(throttle.take(GuessThrottle.Origin(IPAddress("2001:db8:6::1"))) == .allowed(.shared))
        #expect(throttle.take(GuessThrottle.Origin(IPAddress("203.0.113.9"))) == .allowed(.shared))
    }

    /// The attack of issue #58: a thousand networks (one address each, the worst case: every address its own /24)
    /// guess at full speed for most of a day and keep the shared bucket empty. A patient of any other network is
    /// still served, from the reserve; and all of them together got no more lookups than the bound of
    /// docs/security.md (`GuessLimits.lookupsPerDay`).
    @Test func aThousandNetworksLeaveTheReserveToNetworksThatNeverGuessedWrong() async {
        let clock = ManualClock()
        let limits = GuessLimits.teleTANs
        let throttle = limits.makeThrottle(clock: clock, random: SeededRandomSource(seed: 7))
        func attacker(_ n: Int) -> GuessThrottle.Origin { GuessThrottle.Origin(IPAddress(bytes: [10, UInt8(n >> 8), UInt8(n & 0xFF), 1])) }
        func patient(_ n: Int) -> GuessThrottle.Origin { GuessThrottle.Origin(IPAddress(bytes: [172, 16, UInt8(n & 0xFF), 9])) }
        var lookups = 0
        var patientsServed = 0
        for step in 0..<600 {
            for n in 0..<1_000 {
                for _ in 0..<2 {
                    if case .allowed = throttle.take(attacker(n)) { lookups += 1 }
                }
            }
            // Every 100 minutes a patient of a network that never guessed registers a right teleTAN (given back).
            if step % 50 == 0 {
                let origin = patient(step / 50)
                if case .allowed(let pool) = throttle.take(origin) {
                    patientsServed += 1
                    throttle.giveBack(origin, pool: pool)
                }
            }
            clock.advance(by: 119)
            await Task.yield()
        }
        #expect(patientsServed == 12)
        #expect(lookups <= limits.lookupsPerDay)
        // Every attacker network has a wrong guess against it: none draws from the reserve again, however long it waits
        // (within the day of the key: `GuessReserve`).
        clock.advance(by: 3_600)
        for n in 0..<1_000 {
            for _ in 0..<20 { if case .allowed(.reserve) = throttle.take(attacker(n)) { Issue.record("attacker \(n) drew from the reserve") } }
        }
    }

    /// Fifty concurrent guesses of one network that never guessed wrong, while the shared bucket is empty: the reserve
    /// pays for exactly one; once that one was wrong the network draws nothing more, once it was right the next may.
    @Test func aNetworkDrawsOneReserveTokenAtATime() async throws {
        let clock = ManualClock()
        let throttle = GuessThrottle(
            perSource: SourceRateLimiter(capacity: 100, refillPerSecond: 1, clock: clock, random: SeededRandomSource(seed: 8)),
            global: TokenBucket(capacity: 1, refillPerSecond: 1.0 / 3600, clock: clock),
            reserve: GuessReserve(capacity: 10, refillPerSecond: 1.0 / 3600, clock: clock, random: SeededRandomSource(seed: 9))
        )
        #expect(throttle.take(Self.alone([10, 0, 0, 1])) == .allowed(.shared))
        let network: [UInt8] = [4, 192, 0, 2]
        let decisions = try await concurrently(50) { throttle.take(GuessThrottle.Origin(source: [192, 0, 2, 1], network: network)) }
        #expect(decisions.filter { $0 == .allowed(.reserve) }.count == 1)
        #expect(decisions.filter { $0 == .refusedGlobally }.count == 49)
        // A right guess gives it back, and the network is clean again.
        let origin = GuessThrottle.Origin(source: [192, 0, 2, 2], network: network)
        throttle.giveBack(GuessThrottle.Origin(source: [192, 0, 2, 1], network: network), pool: .reserve)
        #expect(throttle.take(origin) == .allowed(.reserve))
        // That one was wrong (not given back): the network's next guess finds no reserve.
        #expect(throttle.take(origin) == .refusedGlobally)
        #expect(throttle.take(Self.alone([10, 0, 0, 2])) == .allowed(.reserve))
    }

    @Test func limitsReadFromTheirSettingsNestTierByTier() throws {
        func read(_ variables: [String: String]) throws -> GuessLimits {
            try GuessLimits(Settings(arguments: ["test"], environment: variables), prefix: "TELETAN", defaults: .teleTANs)
        }
        #expect(try read([:]) == .teleTANs)
        // The bound of docs/security.md: as many lookups a day as before the reserve.
        #expect(GuessLimits.teleTANs.lookupsPerDay == 14_500)
        #expect(GuessLimits.oneTimeCodes.lookupsPerDay == 2_910)
        #expect(try read(["TELETAN_RESERVE_BURST": "2000"]).reserve.burst == 2_000)
        for bad in [
            ["TELETAN_SOURCE_FAILURE_BURST": "21"], ["TELETAN_SOURCE_FAILURES_PER_HOUR": "121"],
            ["TELETAN_NETWORK_FAILURE_BURST": "100"], ["TELETAN_NETWORK_FAILURES_PER_HOUR": "501"], ["TELETAN_RESERVE_BURST": "0"],
        ] {
            #expect(throws: ConfigurationError.self) { try read(bad) }
        }
        #expect(IPAddress("192.0.2.1")?.networkKey == IPAddress("192.0.2.254")?.networkKey)
        #expect(IPAddress("192.0.2.1")?.networkKey != IPAddress("192.0.3.1")?.networkKey)
        #expect(IPAddress("2001:db8:1:2::1")?.networkKey == IPAddress("2001:db8:1:ffff::1")?.networkKey)
        #expect(IPAddress("2001:db8:1::1")?.networkKey != IPAddress("2001:db8:2::1")?.networkKey)
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
