import ExposureCore
import Foundation
import Hummingbird
import NIOCore
import SubmissionDomain

/// Serves the export tree over GET, as a CDN origin would: `…/X` answers the content of `…/X/index`, key files as
/// `application/zip`, indexes as JSON, with `Cache-Control` that lets a CDN keep key files for a day and indexes for
/// five minutes (new hours appear once an hour).
public enum ExportFileRoutes {
    /// - Parameter protegoRoot: the ProteGO output's folder (`PROTEGO_EXPORT_PATH`), served too when given.
    public static func register(on router: Router<BasicRequestContext>, root: URL, protegoRoot: String? = nil) {
        let writer = ExportTreeWriter(root: root)
        router.get("/version/**") { request, _ -> Response in
            try serve(String(request.uri.path.dropFirst()), from: writer)
        }
        if let protegoRoot, let top = protegoRoot.split(separator: "/").first {
            // The apps ask for the index as `<base>//index.txt` (iOS joins paths with a slash of its own) and
            // `<base>/%2Findex.txt` (Android's workaround for that): both name `<base>/index.txt` here.
            router.get("/\(top)/**") { request, _ -> Response in
                let path = request.uri.path.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%2f", with: "/")
                    .split(separator: "/").joined(separator: "/")
                return try serve(path, from: writer)
            }
        }
    }

    /// The file at `path` (relative to the root), or 404.
    private static func serve(_ path: String, from writer: ExportTreeWriter) throws -> Response {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else {
            throw APIError.notFound()
        }
        guard let data = try? writer.read(path) else { throw APIError.notFound() }
        let contentType = ExportFileHeaders.contentType(of: data, path: path)
        let isKeyFile = contentType == "application/zip" && !path.hasSuffix("/app_config")
        return Response(
            status: .ok,
            headers: [
                .contentType: contentType,
                .cacheControl: isKeyFile ? "public, max-age=86400" : "public, max-age=300",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
