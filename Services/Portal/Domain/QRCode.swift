/// A QR code (ISO/IEC 18004) of some bytes: byte mode, error correction level M, versions 1 to 10 (up to 213 bytes),
/// enough for an `otpauth://` URI. Written here because no QR library is available as a package; it follows the
/// standard's construction step by step (and Project Nayuki's public description of it): data bits, Reed–Solomon
/// blocks, interleaving, function patterns, the zigzag placement, and the mask with the lowest penalty.
/// `QRCodeTests` checks it against an independent decoder (zbarimg).
public struct QRCode: Sendable, Equatable {
    public let version: Int
    /// Modules per side: 17 + 4 × version.
    public let size: Int
    /// `modules[y][x]`: true is dark.
    public let modules: [[Bool]]

    public struct TooLong: Error, Equatable {
        public let bytes: Int
    }

    /// Level M, versions 1 to 10: error-correction codewords per block, and the blocks' data codewords.
    static let blocks: [(ecc: Int, data: [Int])] = [
        (10, [16]), (16, [28]), (26, [44]), (18, [32, 32]), (24, [43, 43]),
        (16, [27, 27, 27, 27]), (18, [31, 31, 31, 31]), (22, [38, 38, 39, 39]), (22, [36, 36, 36, 37, 37]),
        (26, [43, 43, 43, 43, 44]),
    ]
    /// Centres of the alignment patterns, versions 1 to 10.
    static let alignment: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]

    public static let maximumVersion = 10

    /// The smallest version that holds `bytes`.
    public init(bytes: [UInt8]) throws(TooLong) {
        guard let version = (1...Self.maximumVersion).first(where: { Self.capacity(version: $0) >= bytes.count }) else {
            throw TooLong(bytes: bytes.count)
        }
        var matrix = Matrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.drawCodewords(Self.interleaved(Self.dataCodewords(bytes, version: version), version: version))
        // The mask with the lowest penalty, with its format bits.
        var best: (penalty: Int, matrix: Matrix)?
        for mask in 0..<8 {
            var candidate = matrix
            candidate.apply(mask: mask)
            candidate.drawFormatBits(mask: mask)
            let penalty = candidate.penalty()
            if best == nil || penalty < best!.penalty { best = (penalty, candidate) }
        }
        self.version = version
        self.size = matrix.size
        self.modules = best!.matrix.modules
    }

    /// A code of given modules (tests damage one this way).
    init(version: Int, size: Int, modules: [[Bool]]) {
        self.version = version
        self.size = size
        self.modules = modules
    }

    public init(text: String) throws(TooLong) {
        try self.init(bytes: Array(text.utf8))
    }

    /// Bytes that fit in a version: its data bits less the mode (4 bits) and count (8 or 16 bits).
    static func capacity(version: Int) -> Int {
        (blocks[version - 1].data.reduce(0, +) * 8 - 4 - countBits(version: version)) / 8
    }

    static func countBits(version: Int) -> Int { version < 10 ? 8 : 16 }

    /// Mode, count, the bytes, a terminator and the pad codewords 0xEC 0x11, as codewords.
    static func dataCodewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        let capacityBits = blocks[version - 1].data.reduce(0, +) * 8
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> i) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, countBits(version: version))
        for byte in bytes { append(Int(byte), 8) }
        append(0, min(4, capacityBits - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var codewords = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < capacityBits / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Splits the data into the version's blocks, adds each block's Reed–Solomon codewords, and interleaves them: the
    /// first codeword of every block, then the second, …, then the error-correction codewords likewise.
    static func interleaved(_ data: [UInt8], version: Int) -> [UInt8] {
        let layout = blocks[version - 1]
        let divisor = ReedSolomon.divisor(degree: layout.ecc)
        var dataBlocks: [[UInt8]] = []
        var start = 0
        for length in layout.data {
            dataBlocks.append(Array(data[start..<start + length]))
            start += length
        }
        let eccBlocks = dataBlocks.map { ReedSolomon.remainder($0, divisor: divisor) }
        var result: [UInt8] = []
        for i in 0..<(layout.data.max() ?? 0) {
            for block in dataBlocks where i < block.count { result.append(block[i]) }
        }
        for i in 0..<layout.ecc {
            for block in eccBlocks { result.append(block[i]) }
        }
        return result
    }
}
