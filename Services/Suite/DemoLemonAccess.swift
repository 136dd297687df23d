import SubmissionDomain

/// What the LEMON story needs beside HTTP: the server's public keys, as the app has them built in, and the health
/// authority's aggregates, which `submission-service lemon-aggregates` reads from the database (no API serves them).
struct DemoLemonAccess: Sendable {
    let serverKeys: LemonServerKeys
    /// k: counts below it are never printed.
    let minimumCount: Int
    /// The aggregates CSV of one day (`YYYY-MM-DD`).
    let aggregates: @Sendable (_ day: String) async throws -> String
}
