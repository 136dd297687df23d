import ExposureRules
import Foundation

/// One result as a lab sends it, before validation.
public struct IncomingResult: Sendable, Equatable {
    public var id: String
    public var result: Int
    public var sampleCollection: Int64?

    public init(id: String, result: Int, sampleCollection: Int64?) {
        self.id = id
        self.result = result
        self.sampleCollection = sampleCollection
    }
}

/// A result that passed validation, ready to store.
public struct ValidResult: Sendable, Equatable {
    /// The hashed GUID in lower case (`x` prefix for the date-of-birth variant).
    public let id: String
    public let result: TestResultCode
    /// Sample collection time, Unix seconds.
    public let sampleCollection: Int64
}

/// Why a batch was refused; the message names the first bad item by index and field.
public struct BatchRejection: Error, Equatable, Sendable {
    public enum Reason: String, Sendable {
        case empty, tooLarge = "too_large", invalidItem = "invalid_item"
    }

    public let reason: Reason
    public let message: String
}

/// The contract's rules for a lab's batch: non-empty, within the size limit, every id a hashed GUID, every code
/// allowed for the endpoint, sample collection times plausible. The first bad item refuses the whole batch.
public struct ResultBatchValidator: Sendable {
    public let maxBatchSize: Int
    /// How far in the future a sample collection time may be (clock skew between lab and server).
    public let allowedClockSkew: TimeInterval

    public init(maxBatchSize: Int, allowedClockSkew: TimeInterval = 3600) {
        self.maxBatchSize = maxBatchSize
        self.allowedClockSkew = allowedClockSkew
    }

    public func validate(_ items: [IncomingResult], kind: ResultKind, now: Date) throws(BatchRejection) -> [ValidResult] {
        guard !items.isEmpty else {
            throw BatchRejection(reason: .empty, message: "testResults must hold at least one result.")
        }
        guard items.count <= maxBatchSize else {
            throw BatchRejection(reason: .tooLarge, message: "testResults holds \(items.count) results; at most \(maxBatchSize) are accepted per request.")
        }
        let latest = now.epochSeconds + Int64(allowedClockSkew)
        var valid: [ValidResult] = []
        valid.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard Codes.isHashedGUID(item.id, allowDobPrefix: true) else {
                throw invalid(index, "id", "must be 64 hexadecimal characters (the first may be x for the date-of-birth variant)")
            }
            guard kind.allowedCodes.contains(item.result), let code = TestResultCode(rawValue: item.result) else {
                throw invalid(index, "result", "must be between \(kind.allowedCodes.lowerBound) and \(kind.allowedCodes.upperBound) on this endpoint")
            }
            if let sc = item.sampleCollection {
                guard sc > 0, sc <= latest else {
                    throw invalid(index, "sc", "must be a Unix time in seconds, not in the future")
                }
            }
            valid.append(ValidResult(id: item.id.lowercased(), result: code, sampleCollection: item.sampleCollection ?? now.epochSeconds))
        }
        return valid
    }

    private func invalid(_ index: Int, _ field: String, _ rule: String) -> BatchRejection {
        BatchRejection(reason: .invalidItem, message: "testResults[\(index)].\(field) \(rule).")
    }
}
