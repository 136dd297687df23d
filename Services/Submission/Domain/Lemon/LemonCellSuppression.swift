/// Suppression of small counts in a table whose cells add up to published totals, so that no suppressed count can be
/// worked out by subtraction from what is published (docs/privacy.md, "LEMON aggregates").
///
/// Each `Group` is one equation: its total is the sum of its cells. A count below k is suppressed (primary). Then, as
/// long as some equation has exactly one suppressed term (a total minus the others would give it away), the smallest
/// published cell of that equation is suppressed as well (complementary), or its total when it has no other cell;
/// every added suppression is checked against every equation again, until none has exactly one unknown.
public struct LemonCellSuppression<Key: Hashable & Comparable & Sendable>: Sendable {
    public enum Mark: Sendable, Equatable {
        /// Printed as counted.
        case published
        /// Below k: printed as `<k`.
        case small
        /// At least k, withheld so that a small count cannot be worked out: printed as `x`.
        case complementary
    }

    /// `total` = the sum of `cells`.
    public struct Group: Sendable {
        public let total: Key
        public let cells: [Key]

        public init(total: Key, cells: [Key]) {
            self.total = total
            self.cells = cells
        }
    }

    public let minimumCount: Int

    public init(minimumCount: Int) {
        precondition(minimumCount >= 1)
        self.minimumCount = minimumCount
    }

    /// The mark of every key of `counts`; a key a group names that `counts` lacks is a published zero.
    public func marks(_ counts: [Key: Int], groups: [Group]) -> [Key: Mark] {
        var marks = counts.mapValues { $0 < minimumCount ? Mark.small : .published }
        func hidden(_ key: Key) -> Bool { (marks[key] ?? .published) != .published }
        var changed = true
        while changed {
            changed = false
            for group in groups {
                let terms = [group.total] + group.cells
                guard terms.filter(hidden).count == 1 else { continue }
                let candidates = group.cells.filter { !hidden($0) && counts[$0] != nil }
                    .sorted { (counts[$0]!, $0) < (counts[$1]!, $1) }
                let next = candidates.first ?? group.total
                // A total that is already hidden with every cell published: hide the smallest cell instead (above).
                guard !hidden(next) else { continue }
                marks[next] = .complementary
                changed = true
            }
        }
        return marks
    }
}
