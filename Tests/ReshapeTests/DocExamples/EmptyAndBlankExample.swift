import Foundation
import Reshape
import Testing

/// docs/swift.md, "`{}` and `""` as nil".
@Suite struct EmptyAndBlankExample {
    // example: empty-and-blank
    struct BookCover: Decodable, EmptyObjectRepresentable { var text: String; var image: String? }
    enum Genre: String, Decodable, BlankStringRepresentable { case thriller, history }

    struct Book: Decodable {
        var title: String
        var frontCover: BookCover?        // {} → nil
        var genre: Genre                  // "" → still an error: not optional
        var subgenre: Genre?              // "" → nil; "bogus" → still an error
    }
    // end example: empty-and-blank

    @Test func run() throws {
        let data = Data(#"{"title": "T", "frontCover": {}, "genre": "history", "subgenre": ""}"#.utf8)
        // example: empty-and-blank
        let book = try JSONDecoder().decode(Book.self, from: data)   // {"frontCover": {}, "subgenre": "", ...}
        // end example: empty-and-blank
        #expect(book.frontCover == nil && book.subgenre == nil && book.genre == .history)
        let blankGenre = Data(#"{"title": "T", "genre": ""}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Book.self, from: blankGenre) }
    }
}
