// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.
// Read them before relying on them: samples show what an API sent, not all it can send.
import Reshape

enum InferredIssues {
    /// The reshaped response.
    struct Issues: PayloadTransformable, Encodable {
        /// The rules that reshape a response into this type, proposed by `reshape infer`.
        static let rules: [Rule] = [
            .document(
                #"""
                [
                  {
                    "op": "convertKeys",
                    "to": "camelCase"
                  }
                ]
                """#
            )
        ]

        let value: [Issue]

        init(from decoder: any Decoder) throws {
            value = try decoder.singleValueContainer().decode([Issue].self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    struct Issue: Codable, Sendable {
        let url: String
        let repositoryUrl: String?
        let labelsUrl: String?
        let commentsUrl: String?
        let eventsUrl: String?
        let htmlUrl: String
        let id: Int
        let nodeId: String
        let number: Int
        let title: String
        let user: User
        let labels: [Label]
        let state: String
        let locked: Bool
        let assignee: Assignee?
        let comments: Int
        let createdAt: String
        let updatedAt: String
        let closedAt: String?
        let authorAssociation: String
        let body: String?
        let pullRequest: PullRequest?
    }

    struct User: Codable, Sendable {
        let login: String
        let id: Int
        let nodeId: String?
        let avatarUrl: String
        let gravatarId: String?
        let url: String?
        let htmlUrl: String?
        let followersUrl: String?
        let type: String
        let siteAdmin: Bool
    }

    struct Label: Codable, Sendable {
        let id: Int
        let nodeId: String
        let url: String
        let name: String
        let description: String
        let color: String
        let `default`: Bool
    }

    struct Assignee: Codable, Sendable {
        let login: String
        let id: Int
        let avatarUrl: String
    }

    struct PullRequest: Codable, Sendable {
        let url: String
        let htmlUrl: String
    }
}
