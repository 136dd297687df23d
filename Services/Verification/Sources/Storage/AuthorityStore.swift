import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `authorities`: the health authorities (`Authority`), their families and regions as comma lists, their
/// limits (NULL for none: for issuer keys, the installation's), and when they were disabled.
public struct AuthorityStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    private static let columns = """
        id, name, regions, families, teletans_per_hour, teletans_per_day, issuer_codes_per_hour, issuer_codes_per_day,
        disabled_at, created_at
        """

    /// Every authority, ordered by id.
    public func list() async throws -> [Authority] {
        try await database.withConnection { connection in
            try await connection.raw("SELECT \(unsafeRaw: Self.columns) FROM authorities ORDER BY id").all().map(Self.authority)
        }
    }

    public func authority(id: String) async throws -> Authority? {
        try await authorities(ids: [id]).first
    }

    /// The authorities of these ids that exist, ordered by id.
    public func authorities(ids: [String]) async throws -> [Authority] {
        guard !ids.isEmpty else { return [] }
        return try await database.withConnection { connection in
            try await connection.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM authorities WHERE id IN \(bindList: Array(Set(ids)).sorted()) ORDER BY id
                """).all().map(Self.authority)
        }
    }

    /// Adds an authority; nil when one of that id exists.
    public func create(id: String, settings: AuthoritySettings, now: Date) async throws -> Authority? {
        let (regions, families) = Self.lists(settings)
        let timestamp = now.epochSeconds
        return try await database.withConnection { connection in
            try await connection.raw("""
                INSERT INTO authorities (
                    id, name, regions, families, teletans_per_hour, teletans_per_day, issuer_codes_per_hour, issuer_codes_per_day,
                    disabled_at, created_at, updated_at
                )
                VALUES (\(bind: id), \(bind: settings.name), \(bind: regions), \(bind: families), \(bind: settings.teleTANsPerHour),
                        \(bind: settings.teleTANsPerDay), \(bind: settings.issuerCodesPerHour), \(bind: settings.issuerCodesPerDay),
                        \(bind: settings.disabled ? timestamp : nil), \(bind: timestamp), \(bind: timestamp))
                ON CONFLICT (id) DO NOTHING RETURNING \(unsafeRaw: Self.columns)
                """).first().map(Self.authority)
        }
    }

    /// Replaces an authority's settings; nil when there is none of that id. Disabling keeps the first time it was
    /// disabled; enabling clears it.
    public func change(id: String, to settings: AuthoritySettings, now: Date) async throws -> Authority? {
        let (regions, families) = Self.lists(settings)
        let timestamp = now.epochSeconds
        let disabledAt: SQLQueryString = settings.disabled ? "COALESCE(disabled_at, \(bind: timestamp))" : "NULL"
        return try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE authorities SET name = \(bind: settings.name), regions = \(bind: regions), families = \(bind: families),
                    teletans_per_hour = \(bind: settings.teleTANsPerHour), teletans_per_day = \(bind: settings.teleTANsPerDay),
                    issuer_codes_per_hour = \(bind: settings.issuerCodesPerHour), issuer_codes_per_day = \(bind: settings.issuerCodesPerDay),
                    disabled_at = \(disabledAt), updated_at = \(bind: timestamp)
                WHERE id = \(bind: id) RETURNING \(unsafeRaw: Self.columns)
                """).first().map(Self.authority)
        }
    }

    /// Disables or enables an authority, keeping its other settings; nil when there is none of that id.
    public func setDisabled(id: String, _ disabled: Bool, now: Date) async throws -> Authority? {
        guard var authority = try await authority(id: id) else { return nil }
        authority.settings.disabled = disabled
        return try await change(id: id, to: authority.settings, now: now)
    }

    private static func lists(_ settings: AuthoritySettings) -> (regions: String, families: String) {
        (settings.regions.joined(separator: ","), settings.families.sorted().map(\.rawValue).joined(separator: ","))
    }

    private static func authority(_ row: any SQLRow) throws -> Authority {
        let regions = try row.decode(column: "regions", as: String.self)
        return Authority(
            id: try row.decode(column: "id", as: String.self),
            settings: AuthoritySettings(
                name: try row.decode(column: "name", as: String.self),
                regions: regions.split(separator: ",").map(String.init),
                // A word no release wrote is left out rather than failing every read of the table.
                families: Set(try row.decode(column: "families", as: String.self).split(separator: ",").compactMap { AppFamily(rawValue: String($0)) }),
                teleTANsPerHour: try row.decode(column: "teletans_per_hour", as: Int?.self),
                teleTANsPerDay: try row.decode(column: "teletans_per_day", as: Int?.self),
                issuerCodesPerHour: try row.decode(column: "issuer_codes_per_hour", as: Int?.self),
                issuerCodesPerDay: try row.decode(column: "issuer_codes_per_day", as: Int?.self),
                disabled: try row.decode(column: "disabled_at", as: Int64?.self) != nil
            ),
            createdAt: try row.decode(column: "created_at", as: Int64.self)
        )
    }
}
