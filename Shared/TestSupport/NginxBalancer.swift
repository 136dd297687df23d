import Foundation

/// nginx (Debian's package) in front of service replicas: the load balancer of a deployment, and for the export tree
/// a CDN's routing to the object store. With `REQUIRE_NGINX=1` (set by `scripts/test.sh` and CI) a missing nginx is
/// a failure, never a silent skip.
public final class NginxBalancer: Sendable {
    /// One listening address of the balancer.
    public struct Site: Sendable {
        public var port: Int
        /// The replicas every request goes to that no `routes` entry takes, balanced round robin.
        public var replicas: [Int]
        /// Path prefixes sent elsewhere (the export tree to a bucket).
        public var routes: [Route]

        public init(port: Int, replicas: [Int], routes: [Route] = []) {
            self.port = port
            self.replicas = replicas
            self.routes = routes
        }
    }

    /// Requests under `prefix` go to `url`, which replaces the prefix, with `headers` set.
    public struct Route: Sendable {
        public var prefix: String
        public var url: String
        public var headers: [(String, String)]

        public init(prefix: String, url: String, headers: [(String, String)] = []) {
            self.prefix = prefix
            self.url = url
            self.headers = headers
        }
    }

    public let process: ServiceProcess
    private let directory: URL

    public static var isRequired: Bool { ProcessInfo.processInfo.environment["REQUIRE_NGINX"] == "1" }

    /// `nginx`: `NGINX`, else Debian's `/usr/sbin/nginx`, else the first on PATH.
    public static var executable: URL? {
        let environment = ProcessInfo.processInfo.environment
        if let configured = environment["NGINX"], !configured.isEmpty { return URL(fileURLWithPath: configured) }
        let folders = ["/usr/sbin"] + (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return folders.map { URL(fileURLWithPath: $0).appendingPathComponent("nginx") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// For `.enabled(if:)`: whether the tests behind nginx run. When nginx is required they always do (and fail at
    /// start-up if it is missing).
    public static var testsRun: Bool { isRequired || executable != nil }

    private init(process: ServiceProcess, directory: URL) {
        self.process = process
        self.directory = directory
    }

    /// Starts nginx with `sites`, waits until each answers `readyPath` through its replicas, runs `body`, stops it.
    public static func run<T: Sendable>(
        _ sites: [Site], readyPath: String = "/health/live", _ body: (NginxBalancer) async throws -> T
    ) async throws -> T {
        guard let executable else {
            throw ExternalTool.Failed(description: "REQUIRE_NGINX=1 but nginx was not found: apt-get install nginx, or set NGINX to its path")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = directory.appendingPathComponent("nginx.conf")
        try Self.configuration(sites, directory: directory).write(to: configuration, atomically: true, encoding: .utf8)
        let process = try ServiceProcess(
            executableURL: executable, arguments: ["-p", directory.path, "-c", configuration.path, "-g", "daemon off;"], environment: [:]
        )
        let balancer = NginxBalancer(process: process, directory: directory)
        do {
            for site in sites { try await process.waitUntilReady("http://127.0.0.1:\(site.port)\(readyPath)") }
            let result = try await body(balancer)
            process.stop()
            return result
        } catch {
            process.stop()
            throw error
        }
    }

    /// What the balancer does, in nginx's words:
    /// - round robin over the replicas, a replica that refuses a connection taken out for a few seconds;
    /// - a request is tried on another replica only when it could not be sent (`proxy_next_upstream error timeout`,
    ///   without `non_idempotent`): a POST a replica received is never sent twice, as a production balancer must not;
    /// - keep-alive connections to the replicas, HTTP/1.1.
    static func configuration(_ sites: [Site], directory: URL) -> String {
        let path = directory.path
        var http = ""
        for (index, site) in sites.enumerated() {
            let servers = site.replicas.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=3s;" }.joined(separator: "\n")
            let routes: String = site.routes.map { route -> String in
                let headers = route.headers.map { " proxy_set_header \($0.0) \"\($0.1)\";" }.joined()
                return "        location \(route.prefix) {\(headers) proxy_pass \(route.url); }"
            }.joined(separator: "\n")
            http += """
                    upstream site\(index) {
                \(servers)
                        keepalive 16;
                    }
                    server {
                        listen 127.0.0.1:\(site.port);
                \(routes)
                        location / { proxy_pass http://site\(index); }
                    }

                """
        }
        // The workers of a master started as root would run as nobody, who cannot write the temporary directories.
        let user = getuid() == 0 ? "user root;\n" : ""
        return """
            \(user)worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(path)/client_body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                client_max_body_size 4m;
                proxy_http_version 1.1;
                proxy_set_header Connection "";
                proxy_connect_timeout 2s;
                proxy_read_timeout 60s;
                proxy_next_upstream error timeout;
            \(http)}

            """
    }

    /// nginx's own complaints (upstreams refusing connections, and so on), for a failing test's message.
    public var errorLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
    }
}
