// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.
// Read them before relying on them: samples show what an API sent, not all it can send.
import Reshape

enum InferredArticles {
    struct Articles: PayloadTransformable, Encodable {
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

        let links: Links
        let data: [Datum]
        let included: [IncludedElement]
    }

    struct Links: Codable, Sendable {
        let selfValue: String

        enum CodingKeys: String, CodingKey {
            case selfValue = "self"
        }
    }

    struct Datum: Codable, Sendable {
        let type: String
        let id: String
        let attributes: Attributes
        let relationships: Relationships
        let links: DatumLinks
    }

    struct Attributes: Codable, Sendable {
        let title: String
        let createdAt: String
        let wordCount: Int
    }

    struct Relationships: Codable, Sendable {
        let author: Author
        let comments: Comments
    }

    struct Author: Codable, Sendable {
        let links: AuthorLinks
        let data: AuthorData
    }

    struct AuthorLinks: Codable, Sendable {
        let selfValue: String

        enum CodingKeys: String, CodingKey {
            case selfValue = "self"
        }
    }

    struct AuthorData: Codable, Sendable {
        let type: String
        let id: String
    }

    struct Comments: Codable, Sendable {
        let data: [CommentsDatum]
    }

    struct CommentsDatum: Codable, Sendable {
        let type: String
        let id: String
    }

    struct DatumLinks: Codable, Sendable {
        let selfValue: String

        enum CodingKeys: String, CodingKey {
            case selfValue = "self"
        }
    }

    struct IncludedElement: Codable, Sendable {
        let type: String
        let id: String
        let attributes: IncludedElementAttributes
        let links: IncludedElementLinks
    }

    struct IncludedElementAttributes: Codable, Sendable {
        let firstName: String
        let lastName: String
        let twitter: String
    }

    struct IncludedElementLinks: Codable, Sendable {
        let selfValue: String

        enum CodingKeys: String, CodingKey {
            case selfValue = "self"
        }
    }
}
