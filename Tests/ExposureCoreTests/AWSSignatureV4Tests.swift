@testable import ExposureCore
import Foundation
import Testing

/// AWS's published Signature Version 4 vectors: the aws-sig-v4-test-suite cases (get-vanilla, post-vanilla,
/// get-vanilla-query-order-key-case) and the worked examples of the S3 API reference ("Signature Calculations for
/// the Authorization Header"). Each step (canonical request, string to sign, signature) is checked on its own, so a
/// failure says which one is wrong.
@Suite struct AWSSignatureV4Tests {
    /// The test suite's credentials, region and service, at 2015-08-30 12:36:00 UTC.
    let suite = AWSSignatureV4(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", region: "us-east-1", service: "service")
    let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)
    /// The S3 reference's credentials, at 2013-05-24 00:00:00 UTC.
    let s3 = AWSSignatureV4(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1", service: "s3")
    let s3Date = Date(timeIntervalSince1970: 1_369_353_600)
    let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test func timestampsAreBasicISO8601InUTC() {
        #expect(AWSSignatureV4.timestamp(suiteDate) == "20150830T123600Z")
        #expect(AWSSignatureV4.timestamp(s3Date) == "20130524T000000Z")
    }

    @Test(arguments: [
        ("GET", "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("POST", "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
    ])
    func vanillaRequests(method: String, canonicalHash: String, signature: String) {
        let request = suite.canonicalRequest(
            method: method, path: "/", query: [], headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")], payloadHash: empty
        )
        #expect(request.text == "\(method)\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(empty)")
        #expect(SecretHash.sha256Hex(request.text) == canonicalHash)
        let stringToSign = suite.stringToSign(canonicalRequest: request.text, date: suiteDate)
        #expect(stringToSign == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n\(canonicalHash)")
        #expect(suite.signature(stringToSign: stringToSign, date: suiteDate) == signature)

        // The same through the one call the client makes, which adds host and x-amz-date itself.
        let headers = Dictionary(uniqueKeysWithValues: suite.sign(method: method, host: "example.amazonaws.com", path: "/", payloadHash: empty, date: suiteDate))
        #expect(headers["x-amz-date"] == "20150830T123600Z")
        #expect(headers["authorization"] == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=\(signature)")
    }

    @Test func queryParametersAreSortedByName() {
        let headers = Dictionary(uniqueKeysWithValues: suite.sign(
            method: "GET", host: "example.amazonaws.com", path: "/", query: [("Param2", "value2"), ("Param1", "value1")], payloadHash: empty, date: suiteDate
        ))
        #expect(headers["authorization"]?.hasSuffix("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500") == true)
    }

    /// S3's "GET Object" example: a Range header and the payload hash header are signed too.
    @Test func s3GetObjectExample() {
        let request = s3.canonicalRequest(
            method: "GET", path: "/test.txt", query: [],
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"), ("x-amz-content-sha256", empty), ("x-amz-date", "20130524T000000Z")],
            payloadHash: empty
        )
        #expect(request.text == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:\(empty)
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            \(empty)
            """)
        let stringToSign = s3.stringToSign(canonicalRequest: request.text, date: s3Date)
        #expect(stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(s3.signature(stringToSign: stringToSign, date: s3Date) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")

        let headers = Dictionary(uniqueKeysWithValues: s3.sign(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
            headers: [("Range", "bytes=0-9"), ("x-amz-content-sha256", empty)], payloadHash: empty, date: s3Date
        ))
        #expect(headers["authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// S3's "GET Bucket (List Objects)" example: query parameters in the canonical request.
    @Test func s3ListObjectsExample() {
        let headers = Dictionary(uniqueKeysWithValues: s3.sign(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/", query: [("max-keys", "2"), ("prefix", "J")],
            headers: [("x-amz-content-sha256", empty)], payloadHash: empty, date: s3Date
        ))
        #expect(headers["authorization"]?.hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test func namesAndPathsAreEncodedAsRFC3986WithSlashesKept() {
        #expect(AWSSignatureV4.encode("a b/c~d_e.f-g+h=ü") == "a%20b%2Fc~d_e.f-g%2Bh%3D%C3%BC")
        #expect(AWSSignatureV4.encodePath("cdn/version/v1/a b") == "cdn/version/v1/a%20b")
    }

    @Test func theSecretNeverAppearsInADescription() {
        #expect(!"\(s3)".contains("EXAMPLEKEY"))
        #expect(!String(reflecting: s3).contains("EXAMPLEKEY"))
    }
}
