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
        let disabledAt: String?

        init(_ record: UserRecord) {
            name = record.name
            roles = record.roles.sorted()
            createdAt = PortalAdmin.iso(record.createdAt)
            state = record.disabledAt == nil ? "active" : "disabled"
            disabledAt = record.disabledAt.map(PortalAdmin.iso)
        }

        // Written by hand so that `disabledAt` is null rather than left out: every row has every key.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(roles, forKey: .roles)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(state, forKey: .state)
            try container.encode(disabledAt, forKey: .disabledAt)
        }

        enum CodingKeys: String, CodingKey { case name, roles, createdAt, state, disabledAt }
    }

    let users: [User]
}
