import Foundation
import Reshape
import Testing

// Seed 004: responses nested under "data" (same key) or "book_list"/"book" (different keys); an
// endpoint declares `Content`, optionally a `Root`, and `content(from:)`.

private struct Book: Codable, Equatable {
    let id: Int
    let name: String
}

/// Same key: the envelope is a rule, `Root` is `Content`.
private struct BookListEndpoint: Endpoint {
    typealias Content = [Book]
    var rules: [Rule] { [.unwrap("$.data")] }
}

private struct BookEndpoint: Endpoint {
    typealias Content = Book
    var rules: [Rule] { [.unwrap("$.data")] }
}

/// Different keys, the seed's way: a `Root` type and `content(from:)`, with snake_case keys.
private struct BookListResponse: Decodable {
    let bookList: [Book]
}

private struct BookListRootEndpoint: Endpoint {
    typealias Content = [Book]
    func content(from root: BookListResponse) -> [Book] { root.bookList }
}

/// Different keys, with a rule instead of a root type.
private struct BookEnvelopeEndpoint: Endpoint {
    typealias Content = Book
    var rules: [Rule] { [.unwrap("$.book")] }
}

@Suite struct EnvelopeSeedTests {
    /// The post's samples as written: trailing commas, and an id "A-1" where `Book.id` is an Int.
    static let dataListJSON = """
        {
          "data": [
            {
              "id": 1,
              "name": "Mu mu",    
            }
          ]
        }
        """
    static let dataBookJSON = """
        {
          "data": {
            "id": "A-1",
            "name": "Mu mu",    
          }
        }
        """
    static let bookListJSON = """
        {
          "book_list": [
            {
              "id": 1,
              "name": "Mu mu",    
            }
          ]
        }
        """

    /// The samples made valid JSON (the trailing commas removed).
    static func strict(_ text: String) -> String {
        text.replacingOccurrences(of: #""Mu mu",    "#, with: #""Mu mu"    "#)
    }

    static let snakeDecoder: ResponseDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return ResponseDecoder(decoder: decoder)
    }()

    @Test func sameKeyEnvelopeAsARule() throws {
        let books = try BookListEndpoint().decode(body(Self.strict(Self.dataListJSON)), statusCode: 200)
        #expect(books == [Book(id: 1, name: "Mu mu")])
        let one = try BookEndpoint().decode(body(#"{"data": {"id": 7, "name": "Mu mu"}}"#), statusCode: 200)
        #expect(one == Book(id: 7, name: "Mu mu"))
    }

    @Test func theSamplesTrailingCommaIsAnInvalidJSONErrorWithItsPosition() {
        let error = responseError { () throws(ResponseError) in
            try BookListEndpoint().decode(body(Self.dataListJSON), statusCode: 200)
        }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.code == .invalidJSON)
        #expect(engine.rule == 0)
        #expect(engine.line == 6)
        #expect(engine.column == 5)
        #expect(engine.path == "$['data'][0]")
    }

    @Test func theSamplesStringIdIsADecodingErrorAtItsPath() {
        let error = responseError { () throws(ResponseError) in
            try BookEndpoint().decode(body(Self.strict(Self.dataBookJSON)), statusCode: 200)
        }
        guard case .decoding(let path, let message, _)? = error else {
            Issue.record("expected .decoding, got \(String(describing: error))")
            return
        }
        // The path is into the reshaped document: after unwrap, the book is the root; the message
        // ends with where the value was in the body.
        #expect(path == "$['id']")
        #expect(message == #"expected Int, found a string (input: $['data']['id'], line 3, column 11)"#)
    }

    @Test func differentKeysWithARootAndContent() throws {
        let books = try Self.snakeDecoder.decode(BookListRootEndpoint(), from: body(Self.strict(Self.bookListJSON)), statusCode: 200)
        #expect(books == [Book(id: 1, name: "Mu mu")])
        let book = try BookEnvelopeEndpoint().decode(body(#"{"book": {"id": 2, "name": "Mu mu"}}"#), statusCode: 200)
        #expect(book == Book(id: 2, name: "Mu mu"))
    }

    @Test func snakeCasePathsNameTheJSONMembers() {
        let json = #"{"book_list": [{"id": 1, "name": "a"}, {"id": "A-1", "name": "b"}]}"#
        let error = responseError { () throws(ResponseError) in
            try Self.snakeDecoder.decode(BookListRootEndpoint(), from: body(json), statusCode: 200)
        }
        guard case .decoding(let path, let message, let underlying)? = error else {
            Issue.record("expected .decoding, got \(String(describing: error))")
            return
        }
        #expect(path == "$['book_list'][1]['id']")
        #expect(message == #"expected Int, found a string"#)
        // The coding path itself holds the Swift-side names.
        if case .typeMismatch(_, let context)? = underlying as? DecodingError {
            #expect(context.codingPath.normalizedPath == "$['bookList'][1]['id']")
        } else {
            Issue.record("expected typeMismatch, got \(underlying)")
        }
    }

    @Test func snakeCaseMissingMember() {
        let error = responseError { () throws(ResponseError) in
            try Self.snakeDecoder.decode(BookListRootEndpoint(), from: body(#"{"books": []}"#), statusCode: 200)
        }
        #expect(error?.description == #"decoding failed at $: no member decoding as the key "bookList""#)
    }

    @Test func httpStatusOutsideSuccessKeepsTheBody() {
        let json = #"{"error": "not found"}"#
        let error = responseError { () throws(ResponseError) in try BookListEndpoint().decode(body(json), statusCode: 404) }
        guard case .httpStatus(let code, let errorBody)? = error else {
            Issue.record("expected .httpStatus, got \(String(describing: error))")
            return
        }
        #expect(code == 404)
        #expect(errorBody == body(json))
        #expect(error?.statusCode == 404)
        #expect(error?.description == #"HTTP status 404: {"error": "not found"}"#)
        for status in [199, 300, 500] {
            let other = responseError { () throws(ResponseError) in try BookListEndpoint().decode(nil, statusCode: status) }
            #expect(other?.statusCode == status)
            #expect(other?.description == "HTTP status \(status), empty body")
        }
    }

    @Test func noDataAndEmptyBody() {
        let none = responseError { () throws(ResponseError) in try BookListEndpoint().decode(nil, statusCode: 200) }
        guard case .noData? = none else {
            Issue.record("expected .noData, got \(String(describing: none))")
            return
        }
        for blank in ["", " \n\t\r "] {
            let error = responseError { () throws(ResponseError) in try BookListEndpoint().decode(body(blank), statusCode: 204) }
            guard case .emptyBody? = error else {
                Issue.record("expected .emptyBody, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func anUnwrapThatFindsNothingIsARuleFailure() {
        let error = responseError { () throws(ResponseError) in try BookListEndpoint().decode(body(#"{"items": []}"#), statusCode: 200) }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.code == .ruleFailed)
        #expect(engine.rule == 1)
        #expect(engine.op == "unwrap")
        #expect(engine.path == "$")
        #expect(error?.path == "$")
    }
}
