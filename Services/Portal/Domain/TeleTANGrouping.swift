/// How a teleTAN is shown for reading aloud: groups of three, the last group taking a lone leftover
/// character (`FE9A5MAK6C` → `FE9 A5M AK6C`), so no group is a single letter that is easy to miss.
public enum TeleTANGrouping {
    public static func groups(_ code: String) -> [String] {
        var groups: [String] = []
        var current = ""
        for character in code {
            current.append(character)
            if current.count == 3 {
                groups.append(current)
                current = ""
            }
        }
        if !current.isEmpty {
            if current.count == 1, let last = groups.popLast() {
                groups.append(last + current)
            } else {
                groups.append(current)
            }
        }
        return groups
    }

    public static func grouped(_ code: String) -> String {
        groups(code).joined(separator: " ")
    }
}
