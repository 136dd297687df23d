extension QRCode {
    /// The code as an SVG image with a quiet zone of four modules: one path of unit squares, drawn crisp, which the
    /// page scales. `label` is its text alternative.
    public func svg(label: String) -> String {
        let side = size + 8
        var path = ""
        for y in 0..<size {
            for x in 0..<size where modules[y][x] { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        let escaped = label.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(side * 5)" height="\(side * 5)" \
            shape-rendering="crispEdges" role="img" aria-label="\(escaped)"><rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path d="\(path)" fill="#000"/></svg>
            """
    }

    /// The code as a binary PGM image (`P5`), `scale` pixels a module with the quiet zone: for tests that hand it to
    /// a decoder.
    public func pgm(scale: Int = 8) -> [UInt8] {
        let side = (size + 8) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<size {
            for x in 0..<size where modules[y][x] {
                for dy in 0..<scale {
                    for dx in 0..<scale { pixels[((y + 4) * scale + dy) * side + (x + 4) * scale + dx] = 0 }
                }
            }
        }
        return Array("P5\n\(side) \(side)\n255\n".utf8) + pixels
    }
}
