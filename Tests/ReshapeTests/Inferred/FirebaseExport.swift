// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.
// Read them before relying on them: samples show what an API sent, not all it can send.
import Reshape

enum InferredFirebaseExport {
    struct FirebaseExport: PayloadTransformable, Encodable {
        /// The rules that reshape a response into this type, proposed by `reshape infer`.
        static let rules: [Rule] = [
            .document(
                #"""
                [
                  {
                    "op": "keyedToArray",
                    "path": "$.users",
                    "idKey": "id"
                  },
                  {
                    "op": "blankStringToNull",
                    "path": "$.users[*].plan"
                  },
                  {
                    "op": "emptyObjectToNull",
                    "path": "$.users[*]['avatar','profile']"
                  }
                ]
                """#
            )
        ]

        let users: [User]
        let meta: Meta
    }

    struct User: Codable, Sendable {
        let id: String
        let displayName: String
        let avatar: Avatar?
        let plan: String?
        let createdAt: Int
        let profile: Profile?
    }

    struct Avatar: Codable, Sendable {
        let url: String
        let width: Int
    }

    struct Profile: Codable, Sendable {
        let city: String
        let bio: String
    }

    struct Meta: Codable, Sendable {
        let exportedAt: String
    }
}
