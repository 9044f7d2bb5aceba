// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.
// Read them before relying on them: samples show what an API sent, not all it can send.
import Reshape

enum InferredPosts {
    /// The reshaped response.
    struct Posts: PayloadTransformable, Encodable {
        /// The rules that reshape a response into this type, proposed by `reshape infer`.
        static let rules: [Rule] = [
            .document(
                #"""
                [
                  {
                    "op": "emptyObjectToNull",
                    "path": "$[*]._links"
                  },
                  {
                    "op": "emptyArrayToNull",
                    "path": "$[*]['meta','acf']"
                  }
                ]
                """#
            )
        ]

        let value: [Post]

        init(from decoder: any Decoder) throws {
            value = try decoder.singleValueContainer().decode([Post].self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    struct Post: Codable, Sendable {
        let id: Int
        let date: String
        let slug: String
        let status: String
        let type: String
        let link: String
        let title: Title
        let content: Content
        let excerpt: Excerpt
        let author: Int
        let featured_media: Int
        let sticky: Bool
        let categories: [Int]
        let tags: [Int]
        let meta: Meta?
        let acf: Acf?
        let _links: Links?
    }

    struct Title: Codable, Sendable {
        let rendered: String
    }

    struct Content: Codable, Sendable {
        let rendered: String
        let protected: Bool
    }

    struct Excerpt: Codable, Sendable {
        let rendered: String
        let protected: Bool
    }

    struct Meta: Codable, Sendable {
        let footnotes: String
    }

    struct Acf: Codable, Sendable {
        let subtitle: String
    }

    struct Links: Codable, Sendable {
        let selfValue: [SelfElement]

        enum CodingKeys: String, CodingKey {
            case selfValue = "self"
        }
    }

    struct SelfElement: Codable, Sendable {
        let href: String
    }
}
