/// Reed–Solomon error correction over GF(2⁸) with the QR code's polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D).
enum ReedSolomon {
    /// The generator polynomial of `degree`, highest coefficient (1) left out: (x − α⁰)(x − α¹)…(x − α^(degree−1)).
    static func divisor(degree: Int) -> [UInt8] {
        var result = Array(repeating: UInt8(0), count: degree - 1) + [1]
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<result.count {
                result[j] = multiply(result[j], root)
                if j + 1 < result.count { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// The error-correction codewords of `data`: its remainder by the divisor.
    static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = Array(repeating: UInt8(0), count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in 0..<result.count { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }

    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for i in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= ((Int(y) >> i) & 1) * Int(x)
        }
        return UInt8(z)
    }
}
