/// Survey answers counted per day: by status, and by symptom. A count below `minimumCount` (k) is written as `<k`, so
/// that a day with few answers from, say, one rare symptom does not point at the few people who sent it. Counts are
/// only ever of one dimension at a time (no status × symptom × country cells), which keeps cells large.
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
        var lines = ["day,kind,value,count"]
        for day in counts.keys.sorted() {
            for (key, count) in counts[day]!.sorted(by: { $0.key < $1.key }) {
                lines.append("\(day),\(key),\(count < minimumCount ? "<\(minimumCount)" : String(count))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
