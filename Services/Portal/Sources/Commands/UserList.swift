import ExposureCore
import Foundation

/// `users list --json`: `{"users": [{"name", "authority", "roles", "createdAt", "state", "disabledAt"}]}`, the rows of the
/// table.
struct UserList: Encodable {
    struct User: Encodable {
        let name: String
        /// The health authority; null for a system administrator.
        let authority: JSONNullable<String>
        /// Sorted, as the table shows them.
        let roles: [String]
        let createdAt: String
        /// `active` or `disabled`.
        let state: String
        /// When it was disabled, or null.
        let disabledAt: JSONNullable<String>

        init(_ record: UserRecord) {
            name = record.name
            authority = JSONNullable(record.authority)
            roles = record.roles.sorted()
            createdAt = Date.iso8601(record.createdAt)
            state = record.disabledAt == nil ? "active" : "disabled"
            disabledAt = JSONNullable(record.disabledAt.map(Date.iso8601))
        }
    }

    let users: [User]
}
