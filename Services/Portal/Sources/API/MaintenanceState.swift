import ExposureCore
import Foundation
import Logging
import Synchronization

/// Whether the portal is in maintenance: by the operator's setting (`MAINTENANCE_MODE`, which only a restart ends),
/// or by a system administrator's switch (`portal_settings`). The switch is read again for a request when the last
/// reading is over five seconds old, so that every replica follows it within seconds without a query per page.
final class MaintenanceState: Sendable {
    /// How long a reading of the switch is used.
    static let freshFor: TimeInterval = 5

    /// `MAINTENANCE_MODE`.
    let bySetting: Bool
    private let store: PortalSettingsStore
    private let clock: any WallClock
    private let logger: Logger
    private let reading = Mutex<(switchedOn: Bool, at: Date?)>((false, nil))

    init(bySetting: Bool, store: PortalSettingsStore, clock: any WallClock, logger: Logger) {
        self.bySetting = bySetting
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    var isOn: Bool { bySetting || switchedOn }

    /// The switch as last read.
    var switchedOn: Bool { reading.withLock { $0.switchedOn } }

    /// Reads the switch when the last reading is stale. A database that cannot be read keeps the last reading (the
    /// page then fails on its own queries, or works as it did).
    func refreshIfStale() async {
        let now = clock.now()
        if let at = reading.withLock({ $0.at }), now >= at, now.timeIntervalSince(at) < Self.freshFor { return }
        do {
            let switchedOn = try await store.value(PortalSettingsStore.maintenance)?.value == "on"
            reading.withLock { $0 = (switchedOn, now) }
        } catch {
            logger.warning("the maintenance switch could not be read", metadata: ["error": "\(type(of: error))"])
        }
    }

    /// What this replica just switched, used at once (other replicas follow within `freshFor`).
    func remember(switchedOn: Bool) {
        reading.withLock { $0 = (switchedOn, clock.now()) }
    }
}
