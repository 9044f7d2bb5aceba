// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.
// Read them before relying on them: samples show what an API sent, not all it can send.
import Reshape

enum InferredUsers {
    struct Users: PayloadTransformable, Encodable {
        /// The rules that reshape a response into this type, proposed by `reshape infer`.
        static let rules: [Rule] = [
            .document(
                #"""
                [
                  {
                    "op": "keyedToArray",
                    "path": "$.*.devices",
                    "idKey": "id"
                  },
                  {
                    "op": "keyedToArray",
                    "idKey": "id",
                    "wrapIn": "users"
                  },
                  {
                    "op": "blankStringToNull",
                    "path": "$.users[*]['plan','balance']"
                  },
                  {
                    "op": "blankStringToNull",
                    "path": "$.users[*].devices[*].push_token"
                  },
                  {
                    "op": "emptyObjectToNull",
                    "path": "$.users[*].avatar"
                  },
                  {
                    "op": "coerce",
                    "path": "$.users[*].balance",
                    "to": "number"
                  },
                  {
                    "op": "convertKeys",
                    "to": "camelCase"
                  }
                ]
                """#
            )
        ]

        let users: [User]
    }

    struct User: Codable, Sendable {
        let id: String
        let displayName: String
        let email: String
        let avatar: Avatar?
        let plan: String?
        let createdAt: Int
        let balance: Double?
        let devices: [Device]
    }

    struct Avatar: Codable, Sendable {
        let url: String
    }

    struct Device: Codable, Sendable {
        let id: String
        let platform: String
        let pushToken: String?
    }
}
