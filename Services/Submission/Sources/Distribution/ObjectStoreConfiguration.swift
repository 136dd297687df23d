import ExposureCore
import Foundation

/// Where to publish the export tree when it goes to an S3-compatible object store rather than `EXPORT_DIR` (see
/// docs/operations.md, "Publishing to an object store"). Absent unless `EXPORT_S3_ENDPOINT` is set.
public struct ObjectStoreConfiguration: Sendable {
    /// `EXPORT_S3_ENDPOINT`: `https://s3.eu-central-1.amazonaws.com`, `http://minio:9000`.
    public var endpoint: URL
    /// `EXPORT_S3_REGION`, default `us-east-1` (what MinIO and most other stores expect).
    public var region: String
    /// `EXPORT_S3_BUCKET`, required.
    public var bucket: String
    /// `EXPORT_S3_PREFIX`: keys start with it, e.g. `cdn/` (default none).
    public var prefix: String
    /// `EXPORT_S3_PATH_STYLE`: `host/bucket/key` rather than `bucket.host/key` (default false; MinIO wants true).
    public var pathStyle: Bool
    /// `EXPORT_S3_ACCESS_KEY_ID` and `EXPORT_S3_SECRET_ACCESS_KEY` (or `…_FILE`), required.
    public var accessKeyID: String
    private var secretAccessKey: String

    static let variables = [
        "EXPORT_S3_REGION", "EXPORT_S3_BUCKET", "EXPORT_S3_PREFIX", "EXPORT_S3_PATH_STYLE", "EXPORT_S3_ACCESS_KEY_ID", "EXPORT_S3_SECRET_ACCESS_KEY",
    ]

    /// nil when `EXPORT_S3_ENDPOINT` is not set; an error when it is set and the rest is incomplete, or when another
    /// `EXPORT_S3_*` setting is given without it (which would otherwise be quietly ignored).
    public init?(_ settings: Settings) throws(ConfigurationError) {
        guard try settings.optionalString("EXPORT_S3_ENDPOINT") != nil else {
            for stray in Self.variables where try settings.raw(stray) != nil {
                throw ConfigurationError(variable: stray, reason: "is set, but EXPORT_S3_ENDPOINT is not: set it to publish to an object store")
            }
            return nil
        }
        endpoint = try settings.url("EXPORT_S3_ENDPOINT", default: "")
        guard endpoint.path.isEmpty || endpoint.path == "/", endpoint.query == nil else {
            throw ConfigurationError(variable: "EXPORT_S3_ENDPOINT", reason: "must be scheme, host and port only (the bucket goes in EXPORT_S3_BUCKET), got '\(endpoint.absoluteString)'")
        }
        region = try settings.string("EXPORT_S3_REGION", default: "us-east-1")
        bucket = try settings.requiredString("EXPORT_S3_BUCKET")
        // S3's rule for names that work in both addressing styles.
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" || $0 == "." }), bucket.first?.isLetter == true || bucket.first?.isNumber == true else {
            throw ConfigurationError(variable: "EXPORT_S3_BUCKET", reason: "must be a bucket name (3 to 63 lower-case letters, digits, '-' and '.'), got '\(bucket)'")
        }
        let prefix = try settings.string("EXPORT_S3_PREFIX", default: "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        self.prefix = prefix.isEmpty ? "" : prefix + "/"
        pathStyle = try settings.bool("EXPORT_S3_PATH_STYLE", default: false)
        accessKeyID = try settings.requiredString("EXPORT_S3_ACCESS_KEY_ID")
        secretAccessKey = try settings.requiredString("EXPORT_S3_SECRET_ACCESS_KEY")
    }

    public var tree: ObjectStoreTreeWriter {
        ObjectStoreTreeWriter(
            client: S3Client(endpoint: endpoint, region: region, bucket: bucket, pathStyle: pathStyle, accessKeyID: accessKeyID, secretAccessKey: secretAccessKey),
            prefix: prefix
        )
    }
}

extension ObjectStoreConfiguration: CustomStringConvertible {
    /// Never the secret.
    public var description: String { "ObjectStoreConfiguration(endpoint: \(endpoint.absoluteString), bucket: \(bucket), prefix: \(prefix), region: \(region), pathStyle: \(pathStyle))" }
}
