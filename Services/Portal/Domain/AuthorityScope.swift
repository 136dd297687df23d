/// Whose accounts, audit rows and figures a reader may see: one health authority's, or every authority's (the
/// national view of a system administrator). Every query of the portal's stores that a supervisor's page makes takes
/// one, so that a supervisor of one authority never reads another's rows.
public enum AuthorityScope: Sendable, Equatable {
    case authority(String)
    case national

    /// The authority a row must belong to; nil for the national view.
    public var authorityID: String? {
        switch self {
        case .authority(let id): id
        case .national: nil
        }
    }
}
