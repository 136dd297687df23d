import ExposureCore
import Foundation

/// `users list --json`: `{"users": [{"name", "roles", "createdAt", "state", "disabledAt"}]}`, the rows of the table.
struct UserList: Encodable {
    struct User: Encodable {
        let name: String
        /// Sorted, as the table shows them.
        let roles: [String]
        let createdAt: String
        /// `active` or `disabled`.
        let state: String
        /// When it was disabled, or null.
        let disabledAt: JSONNullable<String>

        init(_ record: UserRecord) {
            name = record.name
            roles = record.roles.sorted()
            createdAt = Date.iso8601(record.createdAt)
            state = record.disabledAt == nil ? "active" : "disabled"
            disabledAt = JSONNullable(record.disabledAt.map(Date.iso8601))
        }
    }

    let users: [User]
}
