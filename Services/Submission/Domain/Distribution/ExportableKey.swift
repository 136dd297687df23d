/// A stored diagnosis key as distribution sees it: compact (40 bytes, no heap allocation per key), so that a
/// million of them fit comfortably in memory, several times over while a run plans its files.
public struct ExportableKey: Sendable, Equatable {
    /// The 16 key bytes as two big-endian halves: comparing (high, low) is comparing the bytes in order.
    public var high: UInt64
    public var low: UInt64
    public var rollingStartIntervalNumber: Int32
    /// The three small fields are kept in a byte each (see `fits`): with `storeLocator`, the key stays at 40 bytes.
    private var rollingPeriodByte: UInt8
    private var transmissionRiskLevelByte: UInt8
    private var submissionTypeByte: UInt8
    /// Hours since the epoch of the submission.
    public var submissionHour: Int64
    /// Opaque to distribution: a number the store that read the key may give it (0 when it gives none), to find
    /// the key again in its own order when placements are recorded. Kept inside the 40 bytes rather than beside
    /// the key, because a million keys are held at once. Not part of the key's value: `==` ignores it.
    public var storeLocator: Int64

    public var rollingPeriod: Int32 {
        get { Int32(rollingPeriodByte) }
        set { rollingPeriodByte = UInt8(newValue) }
    }

    public var transmissionRiskLevel: Int32 {
        get { Int32(transmissionRiskLevelByte) }
        set { transmissionRiskLevelByte = UInt8(newValue) }
    }

    /// With the key data, what names the stored row (a key may be stored once per submission type).
    public var submissionType: Int32 {
        get { Int32(submissionTypeByte) }
        set { submissionTypeByte = UInt8(newValue) }
    }

    /// Whether a key with these fields can be held: a rolling period, a risk level and a submission type of
    /// 0...255 each. Submissions accept 1...144, 1...8 and the contract's few types.
    public static func fits(rollingPeriod: Int32, transmissionRiskLevel: Int32, submissionType: Int32) -> Bool {
        UInt8(exactly: rollingPeriod) != nil && UInt8(exactly: transmissionRiskLevel) != nil && UInt8(exactly: submissionType) != nil
    }

    /// The fields must `fit`.
    public init(
        keyData: [UInt8], rollingStartIntervalNumber: Int32, rollingPeriod: Int32, transmissionRiskLevel: Int32,
        submissionType: Int32 = 0, submissionHour: Int64, storeLocator: Int64 = 0
    ) {
        precondition(keyData.count == 16, "a diagnosis key has 16 bytes")
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 { high = high << 8 | UInt64(keyData[index]) }
        for index in 8..<16 { low = low << 8 | UInt64(keyData[index]) }
        self.high = high
        self.low = low
        self.rollingStartIntervalNumber = rollingStartIntervalNumber
        self.rollingPeriodByte = UInt8(rollingPeriod)
        self.transmissionRiskLevelByte = UInt8(transmissionRiskLevel)
        self.submissionTypeByte = UInt8(submissionType)
        self.submissionHour = submissionHour
        self.storeLocator = storeLocator
    }

    public static func == (lhs: ExportableKey, rhs: ExportableKey) -> Bool {
        (lhs.high, lhs.low, lhs.rollingStartIntervalNumber, lhs.rollingPeriod, lhs.transmissionRiskLevel)
            == (rhs.high, rhs.low, rhs.rollingStartIntervalNumber, rhs.rollingPeriod, rhs.transmissionRiskLevel)
            && (lhs.submissionType, lhs.submissionHour) == (rhs.submissionType, rhs.submissionHour)
    }

    public var keyData: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        return bytes
    }

    /// Bytewise order of the key data: keys of one upload end up scattered through a file.
    public static func byKeyData(_ lhs: ExportableKey, _ rhs: ExportableKey) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }
}
