// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.
// Read them before relying on them: samples show what an API sent, not all it can send.
import Reshape

enum InferredItems {
    /// The reshaped response.
    struct Items: PayloadTransformable, Encodable {
        /// The rules that reshape a response into this type, proposed by `reshape infer`.
        static let rules: [Rule] = [
            .document(
                #"""
                []
                """#
            )
        ]

        let value: [Item?]

        init(from decoder: any Decoder) throws {
            value = try decoder.singleValueContainer().decode([Item?].self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    struct Item: Codable, Sendable {
        let by: String?
        let descendants: Int?
        let id: Int
        let kids: [Int]?
        let score: Int?
        let time: Int
        let title: String?
        let type: String
        let url: String?
        let deleted: Bool?
        let parent: Int?
        let text: String?
        let dead: Bool?
    }
}
