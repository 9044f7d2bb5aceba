import Foundation
import Reshape
import ReshapeCore
import Testing

// Friction a first project met (issue 11): `localizedDescription`, which the seeds print, said
// "The operation could not be completed"; a struct holding a `LossyArray` could not synthesize
// Equatable or Hashable.

private struct Tag: Decodable, Hashable {
    let name: String
}

/// Synthesized `Hashable`, through the wrapper.
private struct Post: Decodable, Hashable {
    let id: Int
    @LossyArray var tags: [Tag]
}

@Suite struct LocalizedErrorAndEquatableTests {
    @Test func responseErrorsDescribeThemselvesLocalized() throws {
        struct Book: Decodable { let title: String }
        let decoder = ResponseDecoder()
        do {
            _ = try decoder.decode([Book].self, from: Data(#"[{"title": "A"}, {"title": 7}]"#.utf8))
            Issue.record("decoded a number as a String")
        } catch {
            #expect(error.localizedDescription == "decoding failed at $[1]['title']: expected String, found a number")
            #expect(error.localizedDescription == error.description)
        }
        let status = ResponseError.httpStatus(404, body: Data(#"{"error": "no such book"}"#.utf8))
        #expect(status.localizedDescription == #"HTTP status 404: {"error": "no such book"}"#)
        #expect((status as any Error).localizedDescription == status.description)
    }

    @Test func engineErrorsDescribeThemselvesLocalized() throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray"}]"#)
        do {
            _ = try rules.apply(to: #"{"u1": 5}"#)
            Issue.record("keyedToArray took a number as a record")
        } catch {
            let expected = "rule_failed: rule 1 (keyedToArray) at $['u1']: expected an object, found a number"
            #expect(error.description == expected)
            #expect((error as any Error).localizedDescription == expected)
        }
    }

    @Test func lossyArraysCompareAndHashByTheirElements() throws {
        // The same tags kept, different ones dropped: equal, since drops are diagnostics.
        let first = try JSONDecoder().decode(Post.self, from: Data(#"{"id": 1, "tags": [{"name": "a"}, 5, {"name": "b"}]}"#.utf8))
        let second = try JSONDecoder().decode(Post.self, from: Data(#"{"id": 1, "tags": [{"name": "a"}, {"name": "b"}, null]}"#.utf8))
        let other = try JSONDecoder().decode(Post.self, from: Data(#"{"id": 1, "tags": [{"name": "b"}, {"name": "a"}]}"#.utf8))
        #expect(first.$tags.drops.map(\.index) == [1] && second.$tags.drops.map(\.index) == [2])
        #expect(first == second)
        #expect(first != other)
        #expect(Set([first, second, other]).count == 2)
        #expect(first.hashValue == second.hashValue)
        #expect(LossyArray(wrappedValue: [1, 2]) == LossyArray(wrappedValue: [1, 2]))
        #expect(LossyArray(wrappedValue: [1, 2]) != LossyArray(wrappedValue: [2, 1]))
    }

    @Test func contextValuesReadBackWithACast() {
        let context = DecodingContext(responseType: "v2", values: ["locale": "fr", "version": 2])
        let locale: String? = context.values["locale"] as? String
        #expect(locale == "fr")
        #expect(context.value("version", as: Int.self) == 2)
        #expect(context.value("locale", as: Int.self) == nil)
    }
}
