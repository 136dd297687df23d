/// One figure a service counts per day (teleTANs issued, lab results received, keys published, …).
///
/// A figure about what apps do (`isAppSide`) is answered for finished days only: an app-facing request moves it,
/// and a count that anyone could read before and after one phone's request would tell whether that request was
/// real (docs/privacy.md, "Statistics").
public struct DailyFigure: Sendable, Hashable {
    /// The name in the database, the API and the portal (`teletans_issued`).
    public let name: String
    public let isAppSide: Bool

    public init(_ name: String, isAppSide: Bool) {
        self.name = name
        self.isAppSide = isAppSide
    }
}
