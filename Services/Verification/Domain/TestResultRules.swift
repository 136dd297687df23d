/// What the apps may do with a test result.
public enum TestResultRules {
    /// PCR positive (2) or rapid antigen positive (7): the only results that earn a TAN.
    public static func allowsTAN(_ result: Int) -> Bool {
        result == 2 || result == 7
    }

    /// The result every teleTAN session reports: the officer confirmed a positive test.
    public static let teleTANResult = 2

    /// With a date-of-birth variant, both lookups must agree, or the person scanning the QR code is not the
    /// one the lab registered.
    public static func combine(_ main: LookedUpResult, dob: LookedUpResult?) -> LookedUpResult? {
        guard let dob else { return main }
        return main.result == dob.result ? main : nil
    }
}

/// A result as the test-result service answered it.
public struct LookedUpResult: Sendable, Equatable {
    public let result: Int
    public let sampleCollection: Int64
    public let labID: String?

    public init(result: Int, sampleCollection: Int64, labID: String?) {
        self.result = result
        self.sampleCollection = sampleCollection
        self.labID = labID
    }
}
