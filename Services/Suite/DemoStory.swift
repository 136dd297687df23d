import Crypto
import ExposureCore
import ExposureProtocol
import Foundation
import Submission
import SubmissionDomain

/// `exposure-suite demo`: the whole story over real HTTP against running services, each step printed in plain words
/// with the numbers that matter. It throws at the first step that does not hold.
struct DemoStory {
    struct Endpoints {
        var verification = "http://127.0.0.1:8010"
        /// Verification's issuer listener, where a health authority's systems issue ENX codes.
        var verificationIssuer = "http://127.0.0.1:8013"
        var testResultLabs = "http://127.0.0.1:8020"
        var submission = "http://127.0.0.1:8030"
        var portal = "http://127.0.0.1:8040"
    }

    let endpoints: Endpoints
    let credentials: [String: String]
    /// Where the credentials came from, for the advice when a service refuses one.
    let credentialsSource: String
    let exportPublicKey: P256.Signing.PublicKey?
    /// The LEMON story's keys and aggregates: only for a suite, which turns the family on (`SuiteLemonKeys`).
    var lemon: DemoLemonAccess? = nil
    let http = DemoClient()
    let random = SystemRandomSource()

    private func say(_ line: String) { print(line) }

    /// Throws the demo's failure, in plain words, when a step did not hold.
    func expectDemo(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw DemoFailure(message()) }
    }

    func runTestStory() async throws {
        say("== A positive PCR test reaches the people its owner met")
        guard let labKey = credentials["LAB_API_KEY"] else { throw DemoFailure("no LAB_API_KEY in the credentials file") }
        let guid = UUID().uuidString
        let hashedGUID = SecretHash.sha256Hex(guid)
        let lab = try await http.postJSON(
            endpoints.testResultLabs + "/api/v1/lab/results",
            ["testResults": [["id": hashedGUID, "result": 2]]],
            headers: [("Authorization", "Bearer \(labKey)")]
        )
        try expectDemo(lab.status == 204, "the lab's upload was answered \(lab.status): \(lab.text)"
            + (lab.status == 401 ? "\nThe lab key came from \(credentialsSource)." : ""))
        say("1. The lab posts a positive result for test \(guid.prefix(8))… (stored under its SHA-256 only): \(lab.status)")

        let registration = try await http.postJSON(endpoints.verification + "/version/v1/registrationToken",
                                                   ["key": hashedGUID, "keyType": "GUID"], headers: [("cwa-fake", "0")])
        guard registration.status == 201, let token = registration.json["registrationToken"] as? String else {
            throw DemoFailure("registration was answered \(registration.status): \(registration.text)")
        }
        say("2. The phone scans the QR code and registers the hashed GUID: \(registration.status), a registration token (\(registration.body.count) bytes)")

        var result = 0
        var polls = 0
        while result != 2 && polls < 10 {
            polls += 1
            let poll = try await http.postJSON(endpoints.verification + "/version/v1/testresult", ["registrationToken": token], headers: [("cwa-fake", "0")])
            try expectDemo(poll.status == 200, "polling was answered \(poll.status)")
            result = poll.json["testResult"] as? Int ?? -1
        }
        try expectDemo(result == 2, "the result stayed \(result)")
        say("3. It polls the result: positive (2) after \(polls) poll(s)")

        let fake = try await http.postJSON(endpoints.verification + "/version/v1/testresult",
                                           ["registrationToken": Codes.uuidV4(using: random)], headers: [("cwa-fake", "1")])
        try expectDemo(fake.status == 200, "a fake poll was answered \(fake.status)")
        say("   (its fake polls look the same on the wire: \(fake.status), \(fake.body.count) bytes)")

        let tanResponse = try await http.postJSON(endpoints.verification + "/version/v1/tan", ["registrationToken": token], headers: [("cwa-fake", "0")])
        guard tanResponse.status == 201, let tan = tanResponse.json["tan"] as? String else {
            throw DemoFailure("the TAN request was answered \(tanResponse.status): \(tanResponse.text)")
        }
        say("4. It asks for a TAN: \(tanResponse.status), a one-time TAN valid for 14 days")

        let (payload, keys) = try diagnosisKeys(count: 14)
        let uploaded = try await upload(payload, tan: tan)
        try expectDemo(uploaded.status == 200, "the upload was answered \(uploaded.status): \(uploaded.text)")
        say("5. It uploads its 14 daily keys (\(payload.count) bytes of protobuf) with the TAN: \(uploaded.status)")

        let retry = try await upload(payload, tan: tan)
        try expectDemo(retry.status == 200, "the same upload again was answered \(retry.status)")
        say("6. The same upload again (a retry after a lost answer) is the same use of the TAN: \(retry.status)")
        let (otherPayload, _) = try diagnosisKeys(count: 14)
        let other = try await upload(otherPayload, tan: tan)
        try expectDemo(other.status == 403, "an upload of other keys with the used TAN was answered \(other.status)")
        say("   (other keys with the same TAN are refused: \(other.status))")

        try await findInExport(keys, step: 7)
    }

    /// A real upload of `payload` with `tan`, as a phone sends it.
    func upload(_ payload: [UInt8], tan: String) async throws -> DemoClient.Response {
        try await http.send(.POST, endpoints.submission + "/version/v1/diagnosis-keys", headers: [
            ("Content-Type", "application/x-protobuf"), ("cwa-fake", "0"), ("cwa-authorization", tan),
        ], body: payload)
    }

    /// 14 keys, one per day before today, as a phone would upload them.
    func diagnosisKeys(count: Int) throws -> ([UInt8], [[UInt8]]) {
        let today = Int64(Date().timeIntervalSince1970) / 86400
        var payload = SubmissionPayload()
        var keys: [[UInt8]] = []
        for day in 0..<Int64(count) {
            var key = TemporaryExposureKey()
            let data = random.bytes(count: 16)
            keys.append(data)
            key.keyData = Data(data)
            key.rollingStartIntervalNumber = Int32((today - 1 - day) * 144)
            key.rollingPeriod = 144
            key.transmissionRiskLevel = Int32(8 - day / 3)
            payload.keys.append(key)
        }
        payload.origin = "DE"
        payload.visitedCountries = ["DE"]
        payload.consentToFederation = false
        payload.submissionType = .pcrTest
        return (try payload.serializedBytes(), keys)
    }

    /// Polls the CDN tree until the running hour's file holds the uploaded keys, then checks its signature; the two
    /// steps it prints are numbered from `step`.
    func findInExport(_ keys: [[UInt8]], step: Int) async throws {
        let layout = ExportTreeLayout(country: "DE")
        let now = Date()
        let date = ExportTreeLayout.date(day: Int64(now.timeIntervalSince1970) / 86400)
        let hour = Int(Int64(now.timeIntervalSince1970) / 3600 % 24)
        let url = endpoints.submission + "/" + layout.hour(date, hour)
        let wanted = Set(keys)
        let deadline = ContinuousClock.now + .seconds(60)
        var lastFound = 0
        while ContinuousClock.now < deadline {
            let file = try await http.send(.GET, url)
            if file.status == 200 {
                let (binary, export, signatures) = try ExportArchive.read(Data(file.body))
                let published = Set(export.keys.map { Array($0.keyData) })
                lastFound = wanted.intersection(published).count
                if lastFound > 0 {
                    let signature = try P256.Signing.ECDSASignature(derRepresentation: signatures.signatures.first?.signature ?? Data())
                    let verified = exportPublicKey.map { $0.isValidSignature(signature, for: binary) }
                    say("\(step). The distribution run publishes hour \(hour) of \(date): \(export.keys.count) key(s) in a signed file of \(file.body.count) bytes")
                    if let verified {
                        try expectDemo(verified, "the export signature does not verify with the suite's public key")
                        say("\(step + 1). The phone downloads it, verifies the ECDSA P-256 signature: valid, and finds \(lastFound) of its \(keys.count) keys")
                    }
                    if lastFound < keys.count {
                        say("   (the other \(keys.count - lastFound) wait for the expiry policy: a key is published 2 hours after its day ends)")
                    }
                    return
                }
            }
            try await Task.sleep(for: .seconds(2))
        }
        throw DemoFailure("the uploaded keys did not appear in \(url) within 60 s (found \(lastFound))")
    }
}
