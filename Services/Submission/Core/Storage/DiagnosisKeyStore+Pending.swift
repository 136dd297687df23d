import ExposureCore
import Foundation
import SQLKit

/// The keys of uploads whose TAN is reserved but not yet spent (docs/reliability.md, "Two-phase redemption").
///
/// Pending rows carry their upload's reservation key. Once verification has spent the TAN the key is erased from the
/// rows (`publish`): afterwards nothing in this database links published keys to a TAN, as before the two phases.
extension DiagnosisKeyStore {
    /// Makes the keys of a confirmed upload publishable (none, when they are already). The publications of concurrent
    /// uploads go together in one UPDATE.
    public func publish(reservation: String) async throws {
        try await publications.value(for: reservation)
    }

    /// One UPDATE for a batch of reservations.
    static func publish(_ reservations: [String], in database: Database) async throws -> [Void] {
        try await database.withConnection { connection in
            _ = try await connection.execute(
                PublishUpdate.self, binds: [reservations],
                otherwise: """
                    UPDATE diagnosis_keys SET pending_reservation = NULL, pending_since = NULL \
                    WHERE pending_reservation IN \(bindList: reservations)
                    """
            )
        }
        return reservations.map { _ in () }
    }

    /// PostgreSQL's form of the batch, one prepared statement for any size: $1 the reservations.
    enum PublishUpdate: PreparedStatement {
        static let sql = """
            UPDATE diagnosis_keys SET pending_reservation = NULL, pending_since = NULL WHERE pending_reservation = ANY($1::TEXT[])
            """
    }

    /// Deletes the keys of an upload whose reservation lapsed or was released (its TAN was not spent); returns how many.
    @discardableResult
    public func discard(reservation: String) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM diagnosis_keys WHERE pending_reservation = \(bind: reservation) RETURNING submission_type").all().count
        }
    }

    /// Reservation keys of uploads pending since before `cutoff`, at most `limit`, oldest first.
    public func pendingUploads(since cutoff: Date, limit: Int) async throws -> [String] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT pending_reservation, MIN(pending_since) AS since FROM diagnosis_keys \
                WHERE pending_reservation IS NOT NULL AND pending_since < \(bind: cutoff.epochSeconds) \
                GROUP BY pending_reservation ORDER BY since LIMIT \(bind: limit)
                """).all().map { try $0.decode(column: "pending_reservation", as: String.self) }
        }
    }

    /// How many keys are pending (for tests and the operator's checks).
    public func pendingCount() async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM diagnosis_keys WHERE pending_reservation IS NOT NULL")
                .first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }
}
