import ExposureTestSupport
import Foundation
import Testing

/// `exposure-suite demo` with no suite running: it starts one in its process, on the ports it is given, and tells
/// every story against it, the other app families' included (their code kinds are on in the suite).
@Suite struct SuiteDemoTests {
    static let portVariables = [
        "VERIFICATION_PORT", "VERIFICATION_INTERNAL_PORT", "VERIFICATION_ISSUER_PORT", "VERIFICATION_MANAGEMENT_PORT",
        "TESTRESULT_PORT", "TESTRESULT_INTERNAL_PORT", "TESTRESULT_MANAGEMENT_PORT", "SUBMISSION_PORT", "SUBMISSION_MANAGEMENT_PORT",
        "PORTAL_PORT", "PORTAL_MANAGEMENT_PORT",
    ]

    @Test func theSuitesDemoTellsEveryFamilysStory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suite-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = ["DATA_DIR": directory.path, "LOG_LEVEL": "error"]
        for variable in Self.portVariables { environment[variable] = "\(ServiceProcess.freePort())" }
        // The portal gives an officer one code per 30 s: the family stories wait for it, so this takes a minute or two.
        let run = try ServiceProcess.capture("exposure-suite", ["demo"], environment: environment, timeout: .seconds(300))
        let output = run.standardOutput + run.standardError
        #expect(!run.timedOut)
        #expect(run.status == 0, "\(output)")
        for story in ["== A positive PCR test", "== An officer gives a teleTAN", "== A CovidShield app", "== A ProteGO Safe app"] {
            #expect(output.contains(story), "\(story) missing from \(output)")
        }
        #expect(output.contains("error NONE"))
        #expect(output.contains("in index.txt: a signed GAEN zip of region PL"))
        #expect(output.contains("Every step held."))
    }
}
