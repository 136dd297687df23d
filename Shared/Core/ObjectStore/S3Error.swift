/// An object store refused or could not take a call: which call, on what, and what the store said.
public struct S3Error: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let bucket: String
    public let key: String?
    /// nil when no answer came (connection refused, timeout).
    public let status: Int?
    /// The store's error code (`NoSuchBucket`, `AccessDenied`, `SignatureDoesNotMatch`) or the transport error.
    public let code: String?
    public let message: String?

    public var description: String {
        let target = key.map { "\(bucket)/\($0)" } ?? bucket
        let answer = status.map { "HTTP \($0)" } ?? "no answer"
        return "object store: \(operation) \(target) failed (\(answer)\(code.map { ", \($0)" } ?? "")\(message.map { ": \($0)" } ?? ""))"
    }
}
