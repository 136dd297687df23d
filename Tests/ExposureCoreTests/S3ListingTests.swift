@testable import ExposureCore
import Testing

/// ListObjectsV2 answers, read without an XML parser.
@Suite struct S3ListingTests {
    @Test func listingsAreParsedWithEntitiesAndContinuation() throws {
        let page = try S3Listing(xml: """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p/</Prefix>
            <IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
            <Contents><Key>p/a&amp;amp;b&#x20;&lt;</Key><Size>3</Size></Contents><Contents><Key>p/c</Key></Contents>
            <CommonPrefixes><Prefix>p/d/</Prefix></CommonPrefixes></ListBucketResult>
            """)
        #expect(page.keys == ["p/a&amp;b <", "p/c"])
        #expect(page.commonPrefixes == ["p/d/"])
        #expect(page.nextContinuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        #expect(throws: S3Error.self) { try S3Listing(xml: "<Error><Code>AccessDenied</Code></Error>") }
    }

    @Test func errorAnswersGiveTheirCodeAndMessage() {
        let xml = "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>"
        #expect(S3Listing.values(of: "Code", in: xml) == ["NoSuchBucket"])
        #expect(S3Listing.values(of: "Message", in: xml) == ["The specified bucket does not exist"])
        #expect(S3Listing.values(of: "Key", in: "<Key>a & b</Key>") == ["a & b"])
    }
}
