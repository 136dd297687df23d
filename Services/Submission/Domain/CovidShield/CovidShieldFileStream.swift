import ExposureProtocol
import Foundation

/// The body of a retrieval: repeated [uint32 big-endian length][File], one File per region per `maxKeysPerFile`
/// keys (sorted by key data), batch numbers 1...n over all Files, each header saying n (covidshield.md,
/// "Retrieval"). With no keys the body is a single zero length, as the seed's answers are.
public enum CovidShieldFileStream {
    /// The reference's split: 17,063 keys of 30 bytes stay under 500 kB (512,000 bytes) with the header.
    public static let maxKeysPerFile = 17_063

    /// - Parameter keys: the window's keys with the region each is published under.
    public static func encode(_ keys: [(region: String, key: DiagnosisKey)], window: CovidShieldRetrievalWindow) -> [UInt8] {
        let byRegion = Dictionary(grouping: keys, by: \.region)
        var chunks: [(region: String, keys: ArraySlice<DiagnosisKey>)] = []
        for region in byRegion.keys.sorted() {
            let sorted = byRegion[region, default: []].map(\.key).sorted { $0.keyData.lexicographicallyPrecedes($1.keyData) }
            for start in stride(from: 0, to: sorted.count, by: maxKeysPerFile) {
                chunks.append((region, sorted[start..<min(start + maxKeysPerFile, sorted.count)]))
            }
        }
        guard !chunks.isEmpty else { return [0, 0, 0, 0] }
        var body: [UInt8] = []
        for (index, chunk) in chunks.enumerated() {
            var file = Covidshield_File()
            file.header.startTimestamp = window.startTimestamp
            file.header.endTimestamp = window.endTimestamp
            file.header.region = chunk.region
            file.header.batchNum = Int32(index + 1)
            file.header.batchSize = Int32(chunks.count)
            file.key = chunk.keys.map { key in
                var wire = Covidshield_Key()
                wire.keyData = key.keyData
                wire.rollingStartNumber = UInt32(bitPattern: key.rollingStartIntervalNumber)
                wire.rollingPeriod = UInt32(bitPattern: key.rollingPeriod)
                wire.transmissionRiskLevel = key.transmissionRiskLevel
                return wire
            }
            // Every field set above is optional (proto2): encoding cannot fail for want of one.
            let bytes: [UInt8] = (try? file.serializedBytes()) ?? []
            let length = UInt32(bytes.count)
            body += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            body += bytes
        }
        return body
    }
}
