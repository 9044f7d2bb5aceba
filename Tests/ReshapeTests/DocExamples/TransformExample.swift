import Foundation
import Reshape
import Testing

/// docs/swift.md, "Transform, then a derived result".
@Suite struct TransformExample {
    // example: transform
    struct PeopleResponse: Decodable, PayloadTransformable {
        let names: [String]
        static let rules: [Rule] = [.unwrap("$.people")]
        static let transform: PayloadTransform? = { payload, context in
            let names = (payload.arrayValue ?? []).compactMap { person -> JSONValue? in
                guard let first = person["first"]?.stringValue, let last = person["last"]?.stringValue else { return nil }
                return .string("\(first) \(last)")
            }
            return ["names": .array(names)]
        }
    }

    struct PeopleEndpoint: Endpoint {
        typealias Root = PeopleResponse
        func content(from root: PeopleResponse) -> [String] { root.names }
    }
    // end example: transform

    @Test func run() throws {
        let data = Data(#"{"people": [{"first": "Ada", "last": "Lovelace"}, {"first": "Nobody"}]}"#.utf8)
        // example: transform
        let names = try PeopleEndpoint().decode(data, statusCode: 200)     // [String]
        // end example: transform
        #expect(names == ["Ada Lovelace"])
    }
}
