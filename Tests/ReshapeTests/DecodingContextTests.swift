import Foundation
import Reshape
import Testing

// Seed 003, last part: the same object arrives in different shapes from different endpoints; a
// decoding context tells `init(from:)`, transforms and rules which one this is.

/// v1 responses say `title`, v2 responses say `name`; `init(from:)` asks the context.
private struct Article: Decodable, Equatable {
    let title: String

    private enum Keys: String, CodingKey {
        case title, name
    }

    init(title: String) {
        self.title = title
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let key: Keys = decoder.decodingContext?.responseType == "v2" ? .name : .title
        title = try container.decode(String.self, forKey: key)
    }
}

/// The rules depend on the response type: v1 wraps the list in "data", v2 in "items".
private struct ArticleList: Decodable, PayloadTransformable {
    let articles: [Article]

    static func rules(for context: DecodingContext) -> [Rule] {
        switch context.responseType {
        case "v2": [.unwrap("$.items"), .wrap(key: "articles")]
        default: [.unwrap("$.data"), .wrap(key: "articles")]
        }
    }
}

/// Sees the context the decoder gives when none is set: the decoded type's name.
private struct TypeNameProbe: Decodable {
    let responseType: String?
    init(from decoder: any Decoder) throws {
        responseType = decoder.decodingContext?.responseType
    }
}

@Suite struct DecodingContextTests {
    @Test func jsonDecoderWithContext() throws {
        let v2 = JSONDecoder(context: DecodingContext(responseType: "v2"))
        #expect(try v2.decode(Article.self, from: body(#"{"name": "Two"}"#)) == Article(title: "Two"))
        let v1 = JSONDecoder(context: DecodingContext(responseType: "v1"))
        #expect(try v1.decode(Article.self, from: body(#"{"title": "One"}"#)) == Article(title: "One"))
        #expect(try JSONDecoder().decode(Article.self, from: body(#"{"title": "None"}"#)) == Article(title: "None"))
    }

    @Test func responseDecoderCarriesItsContext() throws {
        let decoder = ResponseDecoder(context: DecodingContext(responseType: "v2"))
        #expect(try decoder.decode(Article.self, from: body(#"{"name": "Two"}"#)) == Article(title: "Two"))
        #expect(decoder.makeJSONDecoder().userInfo[.decodingContext] is DecodingContext)
    }

    @Test func theContextChoosesTheRules() throws {
        let v1 = ResponseDecoder(context: DecodingContext(responseType: "v1"))
        #expect(try v1.decode(ArticleList.self, from: body(#"{"data": [{"title": "A"}]}"#)).articles == [Article(title: "A")])
        let v2 = ResponseDecoder(context: DecodingContext(responseType: "v2"))
        #expect(try v2.decode(ArticleList.self, from: body(#"{"items": [{"name": "B"}]}"#)).articles == [Article(title: "B")])
        // v1 rules on a v2 body: the engine says which rule and where.
        let error = responseError { () throws(ResponseError) in try v1.decode(ArticleList.self, from: body(#"{"items": []}"#)) }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.description == #"rule_failed: rule 1 (unwrap) at $: no member "data""#)
    }

    @Test func withoutAContextTheResponseTypeIsTheTypeName() throws {
        #expect(try ResponseDecoder().decode(TypeNameProbe.self, from: body("{}")).responseType == "TypeNameProbe")
        #expect(try JSONDecoder().decode(TypeNameProbe.self, from: body("{}")).responseType == nil)
    }

    @Test func freeFormValues() {
        let context = DecodingContext(responseType: "x", values: ["version": 3, "locale": "fr"])
        #expect(context.value("version", as: Int.self) == 3)
        #expect(context.value("locale", as: String.self) == "fr")
        #expect(context.value("version", as: String.self) == nil)
        #expect(context.value("missing", as: Int.self) == nil)
    }
}
