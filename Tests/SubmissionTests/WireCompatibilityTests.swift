import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing

@testable import Submission
@testable import SubmissionCore

/// A payload encoded by an independent protobuf implementation (Python's `protobuf`, from a `.proto` written
/// from the contract) is read as the contract says. Round trips through our own generated types could not
/// catch a wrong field number or wire type; this can.
///
/// Needs `protoc` and Python 3 with the `protobuf` package (Debian: protobuf-compiler, python3-protobuf).
@Suite struct WireCompatibilityTests {
    static let fixtures = ExternalTool.fixtures

    @Test(arguments: TestDatabase.all)
    func aPayloadFromPythonIsAccepted(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = try await Self.pythonPayload(today: harness.today)
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
    static func pythonPayload(today: Int32) async throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await run(["protoc", "--python_out=\(directory.path)", "-I", fixtures.path, "submission_contract.proto"])
        return try await run([python, fixtures.appendingPathComponent("make_payload.py").path, directory.path, "\(today)"])
    }

    static var python: String { ExternalTool.python }

    static func run(_ arguments: [String]) async throws -> Data { try await ExternalTool.run(arguments) }
}
