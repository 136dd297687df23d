/// Orders the keys of one file bytewise and splits bundles that exceed the per-file maximum into batches.
///
/// The reference server drops a bundle above 600,000 keys; here it becomes several files of one batch (each file
/// carries `batch_num` and `batch_size`), published as `…/H` (batch 1) and `…/H/part/N` (see docs/operations.md).
public struct ExportBatches: Sendable, Equatable {
    public var maxKeysPerFile: Int

    public init(maxKeysPerFile: Int = 600_000) {
        precondition(maxKeysPerFile > 0)
        self.maxKeysPerFile = maxKeysPerFile
    }

    /// The sorted keys cut into batches; an empty bundle is one empty batch (an empty hour still gets a file).
    public func batches(of keys: [ExportableKey]) -> [ArraySlice<ExportableKey>] {
        let sorted = keys.sorted(by: ExportableKey.byKeyData)
        guard !sorted.isEmpty else { return [sorted[...]] }
        return stride(from: 0, to: sorted.count, by: maxKeysPerFile).map { sorted[$0..<min($0 + maxKeysPerFile, sorted.count)] }
    }
}
