import Foundation

/// Where a service keeps its data, parsed from `DATABASE_URL`.
///
/// - `postgres://user:password@host:5432/name` (or `postgresql://…`) for production;
/// - `sqlite:///absolute/path/file.db`, `sqlite://relative/path.db` or `sqlite::memory:` for the embedded default.
public enum DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    case postgres(String)
    case sqliteFile(String)
    case sqliteMemory

    public init(parsing text: String, variable: String = "DATABASE_URL") throws(ConfigurationError) {
        if text == "sqlite::memory:" || text == "sqlite://:memory:" {
            self = .sqliteMemory
        } else if text.hasPrefix("sqlite://") {
            let path = String(text.dropFirst("sqlite://".count))
            guard !path.isEmpty else {
                throw ConfigurationError(variable: variable, reason: "names no file (use sqlite:///path/file.db or sqlite::memory:)")
            }
            self = .sqliteFile(path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            guard let components = URLComponents(string: text), components.host?.isEmpty == false else {
                throw ConfigurationError(variable: variable, reason: "is not a valid postgres:// URL")
            }
            self = .postgres(text)
        } else {
            let scheme = text.split(separator: ":").first.map(String.init) ?? text
            throw ConfigurationError(
                variable: variable,
                reason: "has unsupported scheme '\(scheme)' (use postgres://…, sqlite:///path/file.db or sqlite::memory:)"
            )
        }
    }

    /// The URL as `DATABASE_URL` takes it, password included: for handing to a child process, never for a log.
    public var connectionString: String {
        switch self {
        case .sqliteMemory: return "sqlite::memory:"
        case .sqliteFile(let path): return "sqlite://\(path)"
        case .postgres(let url): return url
        }
    }

    /// The URL with any password replaced, safe to log.
    public var description: String {
        switch self {
        case .sqliteMemory: return "sqlite::memory:"
        case .sqliteFile(let path): return "sqlite://\(path)"
        case .postgres(let url):
            guard var components = URLComponents(string: url) else { return "postgres://…" }
            if components.password != nil { components.password = "***" }
            return components.string ?? "postgres://…"
        }
    }
}
