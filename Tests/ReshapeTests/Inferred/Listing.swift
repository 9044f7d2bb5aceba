// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.
// Read them before relying on them: samples show what an API sent, not all it can send.
import Reshape

enum InferredListing {
    struct Listing: PayloadTransformable, Encodable {
        /// The rules that reshape a response into this type, proposed by `reshape infer`.
        static let rules: [Rule] = [
            .document(
                #"""
                [
                  {
                    "op": "unwrap",
                    "path": "$.data"
                  },
                  {
                    "op": "convertKeys",
                    "to": "camelCase"
                  }
                ]
                """#
            )
        ]

        let after: String
        let dist: Int
        let modhash: String
        let geoFilter: String
        let children: [Child]
        let before: JSONValue?
    }

    struct Child: Codable, Sendable {
        let kind: String
        let data: ChildData
    }

    struct ChildData: Codable, Sendable {
        let subreddit: String
        let selftext: String
        let authorFullname: String
        let title: String
        let name: String
        let ups: Int
        let score: Int
        let createdUtc: Double
        let numComments: Int
        let permalink: String
        let url: String
        let thumbnail: String
        let edited: JSONValue
        let linkFlairText: String?
        let preview: Preview?
    }

    struct Preview: Codable, Sendable {
        let images: [JSONValue]
    }
}
