import Foundation
import Reshape
import Testing

/// docs/swift.md, "a decoding context".
@Suite struct ContextExample {
    // example: context
    struct Article: Decodable {
        let title: String
        enum CodingKeys: String, CodingKey { case title, headline }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let v2 = decoder.decodingContext?.responseType == "v2"
            title = try container.decode(String.self, forKey: v2 ? .headline : .title)
        }
    }

    struct ArticleList: Decodable, PayloadTransformable {
        let articles: [Article]
        init(from decoder: any Decoder) throws { articles = try [Article](from: decoder) }

        static func rules(for context: DecodingContext) -> [Rule] {
            context.responseType == "v2" ? [.unwrap("$.items")] : [.unwrap("$.data")]
        }
    }
    // end example: context

    @Test func run() throws {
        let data = Data(#"{"items": [{"headline": "Bonjour"}]}"#.utf8)
        // example: context
        let decoder = ResponseDecoder(context: DecodingContext(responseType: "v2", values: ["locale": "fr"]))
        let list = try decoder.decode(ArticleList.self, from: data)   // {"items": [{"headline": "Bonjour"}]}
        let locale = decoder.context?.values["locale"] as? String     // "fr"
        // end example: context
        #expect(list.articles.map(\.title) == ["Bonjour"])
        #expect(locale == "fr")
        let v1 = try ResponseDecoder().decode(ArticleList.self, from: Data(#"{"data": [{"title": "Hello"}]}"#.utf8))
        #expect(v1.articles.map(\.title) == ["Hello"])
    }
}
