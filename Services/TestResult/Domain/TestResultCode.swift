/// The result codes of the contract: 0..4 for PCR tests, 5..9 the same states for rapid antigen tests.
public enum TestResultCode: Int, Sendable, CaseIterable {
    case pending = 0, negative = 1, positive = 2, invalid = 3, redeemed = 4
    case quickPending = 5, quickNegative = 6, quickPositive = 7, quickInvalid = 8, quickRedeemed = 9

    public var isQuickTest: Bool { rawValue >= 5 }
    public var isRedeemed: Bool { self == .redeemed || self == .quickRedeemed }

    /// The redeemed code of the same kind of test (4 or 9).
    public var redeemedCode: TestResultCode { isQuickTest ? .quickRedeemed : .redeemed }
}

/// Which upload endpoint a batch came through, and so which codes a lab may send there.
public enum ResultKind: String, Sendable {
    /// `POST /api/v1/lab/results`: 1 negative, 2 positive, 3 invalid.
    case pcr
    /// `POST /api/v1/quicktest/results`: 5 pending (registered), 6 negative, 7 positive, 8 invalid, 9 redeemed.
    case quick

    public var allowedCodes: ClosedRange<Int> {
        switch self {
        case .pcr: 1...3
        case .quick: 5...9
        }
    }
}
