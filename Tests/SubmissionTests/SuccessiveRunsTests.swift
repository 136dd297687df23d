import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore

/// Distribution runs hour after hour while hours hold fewer keys than the shifting threshold, keys leave the lookback
/// window and some commit after their hour was planned. The planner is run against a simulated store here;
/// `DistributionStoreTests` checks that the real one records and returns the same.
@Suite struct SuccessiveRunsTests {
    /// What the database holds between runs: each key with the hour it was placed in, and the last hour planned.
    struct SimulatedStore {
        var keys: [(key: ExportableKey, publishedHour: Int64?)] = []
        var plannedThroughHour: Int64?

        /// The keys submitted from `firstHour` on, as `DistributionStore.state` selects them: those no run placed
        /// and those placed in `placedHours`.
        func state(submittedFrom firstHour: Int64, placedHours: [Range<Int64>]) -> PublicationState {
            var state = PublicationState(plannedThroughHour: plannedThroughHour)
            for (key, hour) in keys where key.submissionHour >= firstHour {
                if let hour {
                    if placedHours.contains(where: { $0.contains(hour) }) { state.published[hour, default: []].append(key) }
                } else {
                    state.unpublished.append(key)
                }
            }
            return state
        }

        mutating func record(_ plan: DistributionPlan) {
            for (hour, placed) in plan.placements {
                for key in placed {
                    let index = keys.firstIndex { $0.key == key }!
                    #expect(keys[index].publishedHour == nil, "a key placed twice")
                    keys[index].publishedHour = hour
                }
            }
            plannedThroughHour = plan.plannedThroughHour
        }
    }

    @Test func everyKeyIsPublishedOnceAndNoPublishedFileWouldChange() throws {
        let layout = ExportTreeLayout(country: "DE")
        let planner = DistributionPlanner(layout: layout, shifting: ShiftingPolicy(threshold: 4))
        let day: Int64 = 20_400
        // Longer than the two days of hourly files, as the real ten days are: a published key leaves the window only
        // after its hour's file is gone.
        let lookbackHours: Int64 = 60
        var store = SimulatedStore()
        var tree: [String: Set<[UInt8]>] = [:]
        var seed: UInt8 = 0
        func newKey(submittedIn hour: Int64) {
            seed &+= 1
            store.keys.append((dayKey(seed, day: day - 3, submissionHour: hour), nil))
        }
        let hours = (day * 24)..<(day * 24 + 110)
        // Hours whose placed keys the runs read: the first run's whole window, then an hour or a day now and then.
        var read = 0
        for hour in hours {
            // Up to two keys an hour, a third of the threshold on average.
            for _ in 0..<Int(hour % 3) { newKey(submittedIn: hour) }
            // Now and then a submission commits just after its hour was planned.
            if hour % 7 == 0 { newKey(submittedIn: hour - 2) }

            // The run a minute into the next hour.
            let now = Date(timeIntervalSince1970: TimeInterval((hour + 1) * 3600 + 60))
            // As `Distributor.run` does: the keys of published files are not read, and those files not planned.
            let published = planner.publishedFiles(now: now, plannedThroughHour: store.plannedThroughHour) { tree[$0] != nil }
            let placedHours = planner.hoursToRead(now: now, publishedFiles: published)
            let plan = planner.plan(store.state(submittedFrom: hour + 1 - lookbackHours, placedHours: placedHours), now: now, publishedFiles: published)
            store.record(plan)
            #expect(plan.bundles.allSatisfy { !published.contains($0.path) })
            read += placedHours.reduce(0) { $0 + $1.count }
            for bundle in plan.bundles where bundle.isComplete {
                let keys = Set(bundle.keys.map(\.keyData))
                if let published = tree[bundle.path], !bundle.replacesExistingFile {
                    // The writer keeps a published hour; the plan must agree with it, or keys are lost or repeated.
                    // (A day's file is checked below, against its hours.)
                    if bundle.path.contains("/hour/") {
                        #expect(published == keys, "\(bundle.path) would change in the run after hour \(hour - day * 24)")
                    }
                } else {
                    tree[bundle.path] = keys
                }
            }
        }

        let hourFiles = tree.filter { $0.key.contains("/hour/") }
        let published = hourFiles.values.flatMap { $0 }
        #expect(published.count == Set(published).count, "a key is in two hour files")
        for (key, hour) in store.keys {
            guard let hour else {
                #expect(!published.contains(key.keyData), "a key in a file is not recorded")
                continue
            }
            let path = layout.hour(ExportTreeLayout.date(day: hour / 24), Int(hour % 24))
            #expect(hourFiles[path]?.contains(key.keyData) == true, "a recorded key is not in its hour's file")
        }
        #expect(store.keys.filter { $0.publishedHour != nil }.count > store.keys.count * 3 / 4)
        // The first run reads the 15 days of files (14 days and today), each later one its open hours: at most the
        // day that has just ended and the hour before. Reading the whole window each run would be 110 times that.
        #expect(read < 15 * 24 + 110 + 5 * 24)
        // A day's file holds exactly its hours' keys.
        for dayNumber in day..<(day + 4) {
            let date = ExportTreeLayout.date(day: dayNumber)
            let ofHours = hourFiles.filter { $0.key.hasPrefix(layout.hourIndex(date) + "/") }.values.reduce(into: Set()) { $0.formUnion($1) }
            #expect(try #require(tree[layout.day(date)]) == ofHours, "\(date)")
        }
    }

    @Test func aKeyStoredAfterItsHourWasPlannedGoesIntoTheNextOpenHour() {
        let layout = ExportTreeLayout(country: "DE")
        let planner = DistributionPlanner(layout: layout, shifting: ShiftingPolicy(threshold: 1))
        let day: Int64 = 20_400
        let late = dayKey(1, day: day - 3, submissionHour: day * 24 + 3)
        // Hours up to 05:00 are planned; the key's hour, 03:00, has its file.
        let state = PublicationState(unpublished: [late], plannedThroughHour: day * 24 + 5)
        let plan = planner.plan(state, now: Date(timeIntervalSince1970: TimeInterval((day * 24 + 7) * 3600)))
        let today = ExportTreeLayout.date(day: day)
        #expect(plan.bundles.first { $0.path == layout.hour(today, 3) }?.keys.isEmpty == true)
        #expect(plan.bundles.first { $0.path == layout.hour(today, 6) }?.keys == [late])
        #expect(plan.placements.map(\.hour) == [day * 24 + 6])
        #expect(plan.plannedThroughHour == day * 24 + 6)
    }

    /// A last run recorded by a replica whose clock was ahead: nothing is planned twice, and nothing crashes.
    @Test func aPlannedHourAheadOfTheClockPlansNothing() {
        let planner = DistributionPlanner(layout: ExportTreeLayout(country: "DE"), shifting: ShiftingPolicy(threshold: 1))
        let day: Int64 = 20_400
        let key = dayKey(1, day: day - 3, submissionHour: day * 24 + 3)
        let plan = planner.plan(
            PublicationState(unpublished: [key], plannedThroughHour: day * 24 + 9),
            now: Date(timeIntervalSince1970: TimeInterval((day * 24 + 7) * 3600))
        )
        #expect(plan.placements.isEmpty)
        #expect(plan.pendingKeys == 1)
        #expect(plan.plannedThroughHour == day * 24 + 9)
        #expect(plan.bundles.allSatisfy { !$0.replacesExistingFile })
    }
}
