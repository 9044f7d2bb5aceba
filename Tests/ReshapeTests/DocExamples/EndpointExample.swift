import Foundation
import Reshape
import Testing

/// docs/swift.md, "Envelopes and endpoints".
@Suite struct EndpointExample {
    // example: endpoints
    struct Book: Codable, Equatable { let id: Int; let name: String }

    struct BookListEndpoint: Endpoint {            // {"data": [...]}
        typealias Content = [Book]
        var rules: [Rule] { [.unwrap("$.data")] }
    }

    struct BookListResponse: Decodable { let bookList: [Book] }
    struct SnakeBookListEndpoint: Endpoint {       // {"book_list": [...]}, the seed's way: a Root type
        typealias Content = [Book]
        func content(from root: BookListResponse) -> [Book] { root.bookList }
    }
    // end example: endpoints

    @Test func run() throws {
        let data = Data(#"{"book_list": [{"id": 1, "name": "Dune"}]}"#.utf8)
        let status = 200
        // example: endpoints
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        let books = try ResponseDecoder(decoder: snake).decode(SnakeBookListEndpoint(), from: data, statusCode: status)
        // end example: endpoints
        #expect(books == [Book(id: 1, name: "Dune")])
        let enveloped = try BookListEndpoint().decode(Data(#"{"data": [{"id": 2, "name": "Emma"}]}"#.utf8), statusCode: 200)
        #expect(enveloped == [Book(id: 2, name: "Emma")])
    }
}
