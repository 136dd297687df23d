import AsyncHTTPClient
import ExposureCore
import Foundation
import Logging
import NIOCore
import SubmissionDomain

/// Imports a JHU CSSE daily report into `lemon_statistics`: from a file, by `submission-service lemon-import` and by the
/// periodic job of `LEMON_STATISTICS_FILE`, or fetched over HTTP by the job of `LEMON_STATISTICS_URL`. A report that
/// cannot be had or read stores nothing: the figures imported before stay as they were.
public enum LemonStatisticsImport {
    public struct Unreadable: Error, CustomStringConvertible {
        let reason: String
        public var description: String { "the statistics report cannot be imported: \(reason)" }
    }

    /// Parses and stores one file; returns how many rows (countries and the world) it stored.
    @discardableResult
    public static func run(
        file: String, day: String?, configuration: LemonConfiguration, database: Database, clock: any WallClock
    ) async throws -> Int {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw Unreadable(reason: "\(file) cannot be read") }
        return try await run(text: text, day: day, configuration: configuration, database: database, clock: clock)
    }

    /// Fetches the report at `url` (at most `configuration.statisticsMaxBytes`, within `statisticsTimeout`), then
    /// parses and stores it; returns how many rows it stored.
    @discardableResult
    public static func run(
        url: String, http: HTTPClient, configuration: LemonConfiguration, database: Database, clock: any WallClock
    ) async throws -> Int {
        let text = try await fetch(url, http: http, timeout: configuration.statisticsTimeout, maxBytes: configuration.statisticsMaxBytes)
        return try await run(text: text, day: nil, configuration: configuration, database: database, clock: clock)
    }

    /// The job of `LEMON_STATISTICS_URL`: one import, and on failure one clear log line (the host, never the whole
    /// URL, which may carry a credential) saying that the stored figures stay.
    public static func scheduled(
        url: String, http: HTTPClient, configuration: LemonConfiguration, database: Database, clock: any WallClock, logger: Logger
    ) async {
        let host = URL(string: url)?.host ?? "?"
        do {
            let rows = try await run(url: url, http: http, configuration: configuration, database: database, clock: clock)
            logger.info("LEMON statistics imported", metadata: ["host": "\(host)", "rows": "\(rows)"])
        } catch {
            logger.error(
                "LEMON statistics not imported; the figures imported before stay",
                metadata: ["host": "\(host)", "reason": "\(error is Unreadable ? "\(error)" : "\(type(of: error))")"]
            )
        }
    }

    static func fetch(_ url: String, http: HTTPClient, timeout: Duration, maxBytes: Int) async throws -> String {
        let response: HTTPClientResponse
        do {
            response = try await http.execute(HTTPClientRequest(url: url), timeout: .milliseconds(Int64(timeout.seconds * 1000)))
        } catch {
            throw Unreadable(reason: "the fetch failed (\(type(of: error)))")
        }
        guard response.status == .ok else { throw Unreadable(reason: "the source answered \(response.status.code)") }
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
            throw Unreadable(reason: "the answer is larger than \(maxBytes) bytes")
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: maxBytes)
        } catch is NIOTooManyBytesError {
            throw Unreadable(reason: "the answer is larger than \(maxBytes) bytes")
        } catch {
            throw Unreadable(reason: "the answer broke off (\(type(of: error)))")
        }
        guard let text = String(validating: Array(buffer: body), as: UTF8.self) else { throw Unreadable(reason: "the answer is not UTF-8 text") }
        return text
    }

    static func run(text: String, day: String?, configuration: LemonConfiguration, database: Database, clock: any WallClock) async throws -> Int {
        let catalog = try LemonCatalogFiles.load(extraDirectory: configuration.dataDirectory)
        let counts: [LemonDailyCount]
        do {
            counts = try LemonDailyReport(catalog: catalog).parse(text, day: day)
        } catch {
            switch error {
            case .missingColumn(let name): throw Unreadable(reason: "no column \(name)")
            case .noDay: throw Unreadable(reason: "no Last_Update day; name the day")
            }
        }
        try await LemonStatisticsStore(database: database).store(counts, now: clock.now())
        return counts.count
    }
}
