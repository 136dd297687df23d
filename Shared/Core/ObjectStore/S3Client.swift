import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The few calls of the S3 REST API that publishing a static tree needs (PUT, HEAD, GET, DELETE of an object and
/// ListObjectsV2), on any S3-compatible store, signed with `AWSSignatureV4`.
///
/// Every body is signed with its SHA-256 (not `UNSIGNED-PAYLOAD`), so the store rejects an upload that changed on
/// the way. Any answer but 2xx (and 404 where that means "absent") throws an `S3Error` naming the call, the key and
/// the store's error code.
public struct S3Client: Sendable {
    /// `scheme://host[:port]` of the store.
    public let endpoint: URL
    public let bucket: String
    /// `https://host/bucket/key` (MinIO, Ceph, moto) instead of `https://bucket.host/key` (AWS's default).
    public let pathStyle: Bool
    let signer: AWSSignatureV4
    let http: HTTPClient
    let timeout: TimeAmount

    public init(
        endpoint: URL, region: String, bucket: String, pathStyle: Bool, accessKeyID: String, secretAccessKey: String,
        http: HTTPClient = .shared, timeout: TimeAmount = .seconds(60)
    ) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.pathStyle = pathStyle
        self.signer = AWSSignatureV4(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, region: region, service: "s3")
        self.http = http
        self.timeout = timeout
    }

    /// Uploads `body` at `key`, with `headers` such as Content-Type and Cache-Control stored with the object.
    public func put(_ key: String, _ body: [UInt8], headers: [(String, String)] = []) async throws {
        _ = try await send(.PUT, "PutObject", key: key, headers: headers, body: body)
    }

    /// The object's headers (names in lower case), or nil when there is no object at `key`.
    public func head(_ key: String) async throws -> [String: String]? {
        try await send(.HEAD, "HeadObject", key: key, absentIsNil: true).map { Self.dictionary($0.headers) }
    }

    /// The object's content and headers, or nil when there is no object at `key`.
    public func get(_ key: String) async throws -> (body: [UInt8], headers: [String: String])? {
        try await send(.GET, "GetObject", key: key, absentIsNil: true).map { (Array(buffer: $0.body), Self.dictionary($0.headers)) }
    }

    private static func dictionary(_ headers: HTTPHeaders) -> [String: String] {
        Dictionary(headers.map { ($0.name.lowercased(), $0.value) }) { _, last in last }
    }

    /// Deletes the object at `key`; deleting an absent one succeeds, as in S3.
    public func delete(_ key: String) async throws {
        _ = try await send(.DELETE, "DeleteObject", key: key, absentIsNil: true)
    }

    /// Every key that starts with `prefix` and, with a `delimiter`, the common prefixes that group the rest: all
    /// pages of ListObjectsV2 (`pageSize` keys each; the store's default, 1000 on S3, when nil).
    public func list(prefix: String, delimiter: String? = nil, pageSize: Int? = nil) async throws -> S3Listing {
        var listing = S3Listing()
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let delimiter { query.append(("delimiter", delimiter)) }
            if let pageSize { query.append(("max-keys", "\(pageSize)")) }
            if let token { query.append(("continuation-token", token)) }
            let answer = try await send(.GET, "ListObjectsV2", key: nil, query: query)!
            let page = try S3Listing(xml: String(buffer: answer.body))
            listing.keys += page.keys
            listing.commonPrefixes += page.commonPrefixes
            token = page.nextContinuationToken
        } while token != nil
        return listing
    }

    /// Creates the bucket (tests and first set-up; production buckets are made by whoever owns the account).
    public func createBucket() async throws {
        _ = try await send(.PUT, "CreateBucket", key: nil)
    }

    private struct Answer {
        let headers: HTTPHeaders
        let body: ByteBuffer
    }

    private func send(
        _ method: HTTPMethod, _ operation: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: [UInt8] = [], absentIsNil: Bool = false
    ) async throws -> Answer? {
        let (host, path) = address(key)
        let payloadHash = SecretHash.sha256Hex(body)
        let signed = signer.sign(
            method: method.rawValue, host: host, path: path, query: query,
            headers: headers + [("x-amz-content-sha256", payloadHash)], payloadHash: payloadHash, date: Date()
        )
        let queryString = query.map { "\(AWSSignatureV4.encode($0.0))=\(AWSSignatureV4.encode($0.1))" }.joined(separator: "&")
        var request = HTTPClientRequest(url: "\(endpoint.scheme ?? "https")://\(host)\(path)" + (queryString.isEmpty ? "" : "?" + queryString))
        request.method = method
        // Host too: the client then sends the text that was signed rather than its own.
        for (name, value) in signed { request.headers.add(name: name, value: value) }
        if method == .PUT { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: timeout)
        } catch {
            throw S3Error(operation: operation, bucket: bucket, key: key, status: nil, code: "\(error)", message: "the store could not be reached")
        }
        // HEAD answers have no body; others are small XML (errors, listings) or the object itself.
        let collected = method == .HEAD ? ByteBuffer() : try await response.body.collect(upTo: 256 << 20)
        if (200..<300).contains(response.status.code) { return Answer(headers: response.headers, body: collected) }
        if absentIsNil, response.status == .notFound { return nil }
        let xml = String(buffer: collected)
        throw S3Error(
            operation: operation, bucket: bucket, key: key, status: Int(response.status.code),
            code: S3Listing.values(of: "Code", in: xml).first, message: S3Listing.values(of: "Message", in: xml).first
        )
    }

    /// The Host header and the encoded path of a key (or of the bucket, for `nil`).
    private func address(_ key: String?) -> (host: String, path: String) {
        let port = endpoint.port.map { ":\($0)" } ?? ""
        let host = endpoint.host ?? ""
        let keyPath = key.map { "/" + AWSSignatureV4.encodePath($0) } ?? "/"
        if pathStyle {
            return (host + port, "/" + AWSSignatureV4.encode(bucket) + (key == nil ? "" : keyPath))
        }
        return ("\(bucket).\(host)\(port)", keyPath)
    }
}
