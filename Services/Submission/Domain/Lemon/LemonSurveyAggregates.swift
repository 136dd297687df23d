/// Survey answers counted per day: by status, and by symptom. A count below `minimumCount` (k) is written as `<k`, so
/// that a day with few answers from, say, one rare symptom does not point at the few people who sent it. Counts are
/// only ever of one dimension at a time (no status × symptom × country cells), which keeps cells large.
///
/// A day's status counts add up to its `answers` count, so one small status count beside a published total could be
/// worked out by subtraction: complementary suppression (`LemonCellSuppression`) withholds the next-smallest status
/// count as well, written `x`. Symptom counts add up to nothing published (an answer names any number of symptoms),
/// and no total across days is printed, so these are the only equations.
public struct LemonSurveyAggregates: Sendable {
    /// What one stored answer contributes.
    public struct Answer: Sendable, Equatable {
        public let day: String
        public let status: String?
        public let symptoms: [String]

        public init(day: String, status: String?, symptoms: [String]) {
            self.day = day
            self.status = status
            self.symptoms = symptoms
        }
    }

    public let minimumCount: Int

    public init(minimumCount: Int) {
        precondition(minimumCount >= 1)
        self.minimumCount = minimumCount
    }

    /// `day,kind,value,count` lines, header first, sorted by day, kind and value. `kind` is `answers` (value empty:
    /// every answer of the day), `status` (value `none` for answers without one) or `symptom`.
    public func csv(_ answers: [Answer]) -> String {
        var counts: [String: [String: Int]] = [:]
        func add(_ day: String, _ key: String) { counts[day, default: [:]][key, default: 0] += 1 }
        for answer in answers {
            add(answer.day, "answers,")
            add(answer.day, "status,\(answer.status ?? "none")")
            for symptom in Set(answer.symptoms) { add(answer.day, "symptom,\(symptom)") }
        }
        let suppression = LemonCellSuppression<String>(minimumCount: minimumCount)
        var lines = ["day,kind,value,count"]
        for day in counts.keys.sorted() {
            let cells = counts[day]!
            let statuses = cells.keys.filter { $0.hasPrefix("status,") }
            let marks = suppression.marks(cells, groups: [.init(total: "answers,", cells: statuses)])
            for (key, count) in cells.sorted(by: { $0.key < $1.key }) {
                let text = switch marks[key] ?? .published {
                case .published: String(count)
                case .small: "<\(minimumCount)"
                case .complementary: "x"
                }
                lines.append("\(day),\(key),\(text)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
