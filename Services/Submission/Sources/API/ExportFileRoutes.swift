import ExposureCore
import Foundation
import Hummingbird
import NIOCore
import SubmissionDomain

/// Serves the export tree over GET, as a CDN origin would: `…/X` answers the content of `…/X/index`, key files as
/// `application/zip`, indexes as JSON, with `Cache-Control` that lets a CDN keep key files for a day and indexes for
/// five minutes (new hours appear once an hour).
public enum ExportFileRoutes {
    public static func register(on router: Router<BasicRequestContext>, root: URL) {
        let writer = ExportTreeWriter(root: root)
        router.get("/version/**") { request, _ -> Response in
            let path = String(request.uri.path.dropFirst())
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !components.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else {
                throw APIError.notFound()
            }
            guard let data = try? writer.read(path) else { throw APIError.notFound() }
            let contentType = ExportFileHeaders.contentType(of: data)
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
}
