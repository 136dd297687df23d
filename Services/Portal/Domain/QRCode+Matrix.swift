extension QRCode {
    /// The modules being drawn, and which of them belong to function patterns (finders, timing, alignment, format
    /// and version information), which data and masks leave alone.
    struct Matrix: Equatable {
        let version: Int
        let size: Int
        var modules: [[Bool]]
        var isFunction: [[Bool]]

        init(version: Int) {
            self.version = version
            size = 17 + 4 * version
            modules = Array(repeating: Array(repeating: false, count: size), count: size)
            isFunction = modules
        }

        mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
            modules[y][x] = dark
            isFunction[y][x] = true
        }

        mutating func drawFunctionPatterns() {
            for i in 0..<size {
                setFunction(6, i, i % 2 == 0)
                setFunction(i, 6, i % 2 == 0)
            }
            drawFinder(3, 3)
            drawFinder(size - 4, 3)
            drawFinder(3, size - 4)
            let centres = QRCode.alignment[version - 1]
            for (i, y) in centres.enumerated() {
                for (j, x) in centres.enumerated() {
                    // Not over the three finders.
                    let last = centres.count - 1
                    if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                    drawAlignment(x, y)
                }
            }
            drawFormatBits(mask: 0)  // reserves the area; drawn again with the chosen mask
            drawVersion()
        }

        private mutating func drawFinder(_ x: Int, _ y: Int) {
            for dy in -4...4 {
                for dx in -4...4 {
                    let xx = x + dx, yy = y + dy
                    guard (0..<size).contains(xx), (0..<size).contains(yy) else { continue }
                    let distance = max(abs(dx), abs(dy))
                    setFunction(xx, yy, distance != 2 && distance != 4)
                }
            }
        }

        private mutating func drawAlignment(_ x: Int, _ y: Int) {
            for dy in -2...2 {
                for dx in -2...2 { setFunction(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) }
            }
        }

        /// Level M (`00`) and the mask, BCH(15,5)-protected, XORed with 0x5412, in both copies; and the dark module.
        mutating func drawFormatBits(mask: Int) {
            let data = 0b00 << 3 | mask
            var remainder = data
            for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
            let bits = (data << 10 | remainder) ^ 0x5412
            func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
            for i in 0...5 { setFunction(8, i, bit(i)) }
            setFunction(8, 7, bit(6))
            setFunction(8, 8, bit(7))
            setFunction(7, 8, bit(8))
            for i in 9..<15 { setFunction(14 - i, 8, bit(i)) }
            for i in 0..<8 { setFunction(size - 1 - i, 8, bit(i)) }
            for i in 8..<15 { setFunction(8, size - 15 + i, bit(i)) }
            setFunction(8, size - 8, true)
        }

        /// Versions 7 and up: the version, BCH(18,6)-protected, in two 6×3 blocks.
        private mutating func drawVersion() {
            guard version >= 7 else { return }
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1
                let a = size - 11 + i % 3, b = i / 3
                setFunction(a, b, dark)
                setFunction(b, a, dark)
            }
        }

        /// The codewords' bits, most significant first, in the zigzag of two-module columns from the bottom right,
        /// skipping function modules and the vertical timing column.
        mutating func drawCodewords(_ codewords: [UInt8]) {
            var index = 0
            var right = size - 1
            while right >= 1 {
                if right == 6 { right = 5 }
                for vertical in 0..<size {
                    for j in 0..<2 {
                        let x = right - j
                        let upward = (right + 1) & 2 == 0
                        let y = upward ? size - 1 - vertical : vertical
                        guard !isFunction[y][x], index < codewords.count * 8 else { continue }
                        modules[y][x] = (codewords[index >> 3] >> (7 - (index & 7))) & 1 == 1
                        index += 1
                    }
                }
                right -= 2
            }
        }

        /// XORs the data modules with one of the eight mask patterns.
        mutating func apply(mask: Int) {
            for y in 0..<size {
                for x in 0..<size where !isFunction[y][x] {
                    let invert: Bool = switch mask {
                    case 0: (x + y) % 2 == 0
                    case 1: y % 2 == 0
                    case 2: x % 3 == 0
                    case 3: (x + y) % 3 == 0
                    case 4: (x / 3 + y / 2) % 2 == 0
                    case 5: x * y % 2 + x * y % 3 == 0
                    case 6: (x * y % 2 + x * y % 3) % 2 == 0
                    default: ((x + y) % 2 + x * y % 3) % 2 == 0
                    }
                    if invert { modules[y][x].toggle() }
                }
            }
        }

        /// The standard's penalty: long runs, 2×2 blocks, finder-like patterns, and imbalance of dark and light.
        func penalty() -> Int {
            var result = 0
            let columns = (0..<size).map { x in (0..<size).map { y in modules[y][x] } }
            let finderLike: [Bool] = [true, false, true, true, true, false, true, false, false, false, false]
            for line in modules + columns {
                var run = 1
                for i in 1..<size {
                    if line[i] == line[i - 1] {
                        run += 1
                    } else {
                        if run >= 5 { result += 3 + run - 5 }
                        run = 1
                    }
                }
                if run >= 5 { result += 3 + run - 5 }
                for start in 0...(size - finderLike.count) {
                    let window = Array(line[start..<start + finderLike.count])
                    if window == finderLike || window == finderLike.reversed() { result += 40 }
                }
            }
            for y in 0..<(size - 1) {
                for x in 0..<(size - 1) {
                    let colour = modules[y][x]
                    if modules[y][x + 1] == colour, modules[y + 1][x] == colour, modules[y + 1][x + 1] == colour { result += 3 }
                }
            }
            let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }
            let total = size * size
            result += (abs(dark * 20 - total * 10) + total - 1) / total * 10 - 10
            return result
        }
    }
}
