import ExposureCore
import Verification

/// One of the four services, as a stack starts them: in this order, because each calls only those before it
/// (verification and the portal call test-result; submission and the portal call verification).
public enum StackMember: String, CaseIterable, Sendable, Comparable {
    case testResult = "testresult"
    case verification
    case submission
    case portal

    /// The executable that runs the service on its own.
    public var executable: String { "\(rawValue)-service" }

    /// The prefix of the all-in-one launcher's variables for this service (`VERIFICATION_PORT=9010`).
    public var environmentPrefix: String { rawValue.uppercased() }

    /// The listener the service's own clients reach (`PORT`): labs, apps, apps, officers.
    public var publicListener: String {
        switch self {
        case .testResult: "lab"
        case .verification, .submission: "app"
        case .portal: "web"
        }
    }

    /// Whether the service keeps daily statistics and serves them on its management listener (docs/statistics.md).
    public var countsStatistics: Bool { self != .portal }

    /// Whether other services call this one, on its internal listener (`INTERNAL_PORT`).
    public var hasInternalListener: Bool { self == .testResult || self == .verification }

    /// Every listener the service opens: the variable that sets its port, and its name (the key of the ports a
    /// runner answers): the public one, the internal one, verification's issuer listener for health-authority
    /// systems (`ISSUER_PORT`), and the management listener.
    public var listeners: [(variable: String, name: String)] {
        var listeners = [(variable: "PORT", name: publicListener)]
        if hasInternalListener { listeners.append((variable: "INTERNAL_PORT", name: "internal")) }
        if self == .verification { listeners.append((variable: "ISSUER_PORT", name: VerificationService.issuerListener)) }
        listeners.append((variable: "MANAGEMENT_PORT", name: ManagementRouter.listenerName))
        return listeners
    }

    public static func < (lhs: StackMember, rhs: StackMember) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
