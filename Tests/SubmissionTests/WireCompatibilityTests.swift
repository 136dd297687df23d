import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission

/// A payload encoded by an independent protobuf implementation (Python's `protobuf`, from a `.proto` written
/// from the contract) is read as the contract says. Round trips through our own generated types could not
/// catch a wrong field number or wire type; this can.
///
/// Needs `protoc` and Python 3 with the `protobuf` package (Debian: protobuf-compiler, python3-protobuf).
@Suite struct WireCompatibilityTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test(arguments: TestDatabase.all)
    func aPayloadFromPythonIsAccepted(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = try Self.pythonPayload(today: harness.today)
            let response = try await harness.submit(Array(body), tan: harness.verification.issue())
            #expect(response.status == 200, "\(response.text)")
            let stored = try await harness.store.all().map(\.key)
            let today = harness.today
            #expect(stored == [
                DiagnosisKey(
                    keyData: Data(repeating: 0x11, count: 16), rollingStartIntervalNumber: today - 144, rollingPeriod: 144,
                    transmissionRiskLevel: 6, daysSinceOnsetOfSymptoms: -2, reportType: 1, originCountry: "DE",
                    visitedCountries: ["FR", "IT"], consentToFederation: true, submissionType: 1),
                DiagnosisKey(
                    keyData: Data(repeating: 0x22, count: 16), rollingStartIntervalNumber: today - 2 * 144, rollingPeriod: 144,
                    transmissionRiskLevel: 7, daysSinceOnsetOfSymptoms: 3, reportType: 1, originCountry: "DE",
                    visitedCountries: ["FR", "IT"], consentToFederation: true, submissionType: 1),
                DiagnosisKey(
                    keyData: Data(repeating: 0x33, count: 16), rollingStartIntervalNumber: today - 3 * 144, rollingPeriod: 100,
                    transmissionRiskLevel: 2, daysSinceOnsetOfSymptoms: 13, reportType: 3, originCountry: "DE",
                    visitedCountries: ["FR", "IT"], consentToFederation: true, submissionType: 1),
            ])
        }
    }

    /// Compiles the fixture `.proto` with `protoc --python_out` into a temporary directory and runs the
    /// fixture script, which prints the payload.
    static func pythonPayload(today: Int32) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try run(["protoc", "--python_out=\(directory.path)", "-I", fixtures.path, "submission_contract.proto"])
        return try run([python, fixtures.appendingPathComponent("make_payload.py").path, directory.path, "\(today)"])
    }

    /// A Python 3 that has the protobuf package: `PYTHON` if set, else the system interpreter (where Debian's
    /// python3-protobuf lives), else the first `python3` on PATH.
    static var python: String {
        if let configured = ProcessInfo.processInfo.environment["PYTHON"], !configured.isEmpty { return configured }
        for candidate in ["/usr/bin/python3", "python3"] where (try? run([candidate, "-c", "import google.protobuf"])) != nil {
            return candidate
        }
        return "python3"
    }

    struct ToolFailed: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw ToolFailed(description: "cannot start \(arguments[0]): \(error) (install protobuf-compiler and python3-protobuf)")
        }
        // Read before waiting, so that a large output cannot fill the pipe and block the tool.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailed(description: "\(arguments[0]) failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self)) "
                + "(the test needs protoc and Python 3 with the protobuf package: apt-get install protobuf-compiler python3-protobuf)")
        }
        return data
    }
}
