import Hummingbird

/// The sentence a list page shows above itself after a step (issuer keys, signing keys, lab credentials): a notice
/// when the step was done, a refusal (with the step's status) when it was not.
struct PageNotice {
    let text: String
    let status: HTTPResponse.Status

    init(_ text: String, _ status: HTTPResponse.Status) {
        self.text = text
        self.status = status
    }

    /// Sets the template's `notice` (a done step, shown as a status) or `refusal` (shown as an alert).
    func add(to values: inout [String: Any]) {
        values[status == .ok ? "notice" : "refusal"] = text
    }
}
