import Foundation
import Reshape
import Testing

// Seed 003: `{}` for a missing optional object and `""` for a missing optional enum, opted into per
// type, for synthesized Decodable; and a decoding context for types whose shape varies by endpoint.

private struct BookCover: Decodable, Equatable, EmptyObjectRepresentable {
    var text: String
    var image: String?
}

private struct Book: Decodable, Equatable {
    var title: String
    var frontCover: BookCover?
    var backCover: BookCover?
}

/// The same book with a cover that must be there.
private struct BookWithCover: Decodable {
    var title: String
    var frontCover: BookCover
}

private enum Genre: String, Decodable, BlankStringRepresentable {
    case thriller
    case history
}

private struct GenreBook: Decodable, Equatable {
    var genre: Genre
    var subgenre: Genre?
}

/// Without the opt-in, `{}` is not nil.
private struct PlainCover: Decodable {
    var text: String
}

private struct PlainBook: Decodable {
    var title: String
    var frontCover: PlainCover?
}

/// Both opt-ins at once: `{}` and `""` are nil.
private enum Shape: String, Decodable, BlankStringRepresentable, EmptyObjectRepresentable {
    case round
}

private struct Shapes: Decodable, Equatable {
    var a: Shape?
    var b: Shape?
    var c: Shape?
    var d: Shape?
}

@Suite struct EmptyAndBlankSeedTests {
    /// The seed's book, as written in the post.
    static let bookJSON = """
        {   "title": "Blah",
            "frontCover": {},
            "backCover": { "image": "", "text": "It's good, read it" }
        }
        """

    /// The seed's genre sample, as written in the post (with its trailing comma).
    static let genreJSON = """
        {   "genre": "thriller",
            "subgenre": "",
        }
        """

    @Test func emptyObjectIsNilForAnOptedInOptional() throws {
        let book = try ResponseDecoder().decode(Book.self, from: body(Self.bookJSON))
        #expect(book == Book(title: "Blah", frontCover: nil, backCover: BookCover(text: "It's good, read it", image: "")))
        // And with a plain JSONDecoder: the overload is picked by synthesized init(from:) itself.
        #expect(try JSONDecoder().decode(Book.self, from: body(Self.bookJSON)) == book)
        #expect(try JSONDecoder().decode(Book.self, from: body(#"{"title": "t", "frontCover": null}"#)).frontCover == nil)
        #expect(try JSONDecoder().decode(Book.self, from: body(#"{"title": "t"}"#)).frontCover == nil)
    }

    @Test func aNonEmptyInvalidCoverStillFails() {
        let error = responseError { () throws(ResponseError) in
            try ResponseDecoder().decode(Book.self, from: body(#"{"title": "t", "frontCover": {"image": "x"}}"#))
        }
        guard case .decoding(let path, let message, _)? = error else {
            Issue.record("expected .decoding, got \(String(describing: error))")
            return
        }
        #expect(path == "$['frontCover']")
        #expect(message == #"no member "text""#)
    }

    @Test func aNonOptionalCoverStillFailsOnEmpty() {
        let error = responseError { () throws(ResponseError) in
            try ResponseDecoder().decode(BookWithCover.self, from: body(Self.bookJSON))
        }
        guard case .decoding(let path, let message, _)? = error else {
            Issue.record("expected .decoding, got \(String(describing: error))")
            return
        }
        #expect(path == "$['frontCover']")
        #expect(message == #"no member "text""#)
    }

    @Test func withoutTheOptInEmptyFailsAsTheSeedShows() {
        let error = responseError { () throws(ResponseError) in
            try ResponseDecoder().decode(PlainBook.self, from: body(Self.bookJSON))
        }
        #expect(error?.description == #"decoding failed at $['frontCover']: no member "text""#)
    }

    @Test func theRuleDoesTheSameForAnyType() throws {
        // The engine's emptyObjectToNull, for types that do not opt in.
        let decoder = try ResponseDecoder(rules: [.emptyObjectToNull])
        #expect(try decoder.decode(PlainBook.self, from: body(Self.bookJSON)).frontCover == nil)
    }

    @Test func blankStringIsNilForAnOptedInOptional() throws {
        // The post's sample has a trailing comma. JSONDecoder reads it when no rule runs...
        let book = try ResponseDecoder().decode(GenreBook.self, from: body(Self.genreJSON))
        #expect(book == GenreBook(genre: .thriller, subgenre: nil))
        let fixed = #"{"genre": "history", "subgenre": ""}"#
        #expect(try JSONDecoder().decode(GenreBook.self, from: body(fixed)) == GenreBook(genre: .history, subgenre: nil))
        #expect(try JSONDecoder().decode(GenreBook.self, from: body(#"{"genre": "history", "subgenre": null}"#)).subgenre == nil)
        #expect(try JSONDecoder().decode(GenreBook.self, from: body(#"{"genre": "history", "subgenre": "thriller"}"#)).subgenre == .thriller)
    }

    @Test func rulesReadTheBodyStrictly() {
        // ...but whenever rules run, the engine's strict reader says exactly where it is not JSON.
        let error = responseError { () throws(ResponseError) in
            try ResponseDecoder(rules: [.blankStringToNull]).decode(GenreBook.self, from: body(Self.genreJSON))
        }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.code == .invalidJSON)
        #expect(engine.line == 3)
        #expect(engine.column == 1)
        #expect(engine.position == 45)
    }

    @Test func anUnknownRawValueStillFails() {
        let error = responseError { () throws(ResponseError) in
            try ResponseDecoder().decode(GenreBook.self, from: body(#"{"genre": "thriller", "subgenre": "bogus"}"#))
        }
        guard case .decoding(let path, let message, let underlying)? = error else {
            Issue.record("expected .decoding, got \(String(describing: error))")
            return
        }
        #expect(path == "$['subgenre']")
        // The kind of value, never the value: bodies carry personal data.
        #expect(message == "expected Genre, found a string that is none of its raw values")
        guard case .dataCorrupted? = underlying as? DecodingError else {
            Issue.record("expected dataCorrupted, got \(underlying)")
            return
        }
        // White space is not blank either: only "" means nil.
        let spaces = responseError { () throws(ResponseError) in
            try ResponseDecoder().decode(GenreBook.self, from: body(#"{"genre": "thriller", "subgenre": " "}"#))
        }
        #expect(spaces?.path == "$['subgenre']")
    }

    @Test func aNonOptionalEnumStillFailsOnBlank() {
        let error = responseError { () throws(ResponseError) in
            try ResponseDecoder().decode(GenreBook.self, from: body(#"{"genre": "", "subgenre": "history"}"#))
        }
        #expect(error?.path == "$['genre']")
    }

    @Test func bothOptInsTogether() throws {
        let shapes = try JSONDecoder().decode(Shapes.self, from: body(#"{"a": {}, "b": "", "c": "round", "d": null}"#))
        #expect(shapes == Shapes(a: nil, b: nil, c: .round, d: nil))
        #expect((try? JSONDecoder().decode(Shapes.self, from: body(#"{"a": "square"}"#))) == nil)
    }
}
