import Foundation
import Hummingbird
import NIOCore

/// The stylesheet and script, read once from the bundle and served from memory.
struct StaticAssets: Sendable {
    private let files: [String: (contentType: String, bytes: [UInt8])]

    static let contentTypes = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]

    static func bundled() throws -> StaticAssets {
        guard let directory = Bundle.module.url(forResource: "Resources", withExtension: nil)?.appendingPathComponent("static") else {
            throw PageRenderer.TemplateMissing(name: "Resources/static")
        }
        var files: [String: (String, [UInt8])] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            guard let type = contentTypes[(name as NSString).pathExtension] else { continue }
            files[name] = (type, Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
        return StaticAssets(files: files)
    }

    func response(for name: String) -> Response? {
        guard let file = files[name] else { return nil }
        return Response(
            status: .ok,
            headers: [.contentType: file.contentType, .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: file.bytes))
        )
    }
}

extension PortalWeb {
    func asset(_ name: String) throws -> Response {
        guard let response = assets.response(for: name) else { throw PortalError.notFound }
        return response
    }
}
