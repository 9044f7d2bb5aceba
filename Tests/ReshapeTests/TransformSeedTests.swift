import Foundation
import Reshape
import Testing

// Seed 002: a response type that may transform its JSON before decoding (`transform` on
// `[String: Any]`, with the request) and hands back a derived result (`result()`), with errors for
// no data and decoding failures.

/// The seed's `NamesResponse`: decoded as is, its content is the names.
private struct NamesResponse: Codable {
    let names: [String]
}

private struct NamesEndpoint: Endpoint {
    typealias Root = NamesResponse
    func content(from root: NamesResponse) -> [String] { root.names }
}

/// A response no op covers: names split in parts. The transform joins them, and, when the context
/// says so, upper-cases them.
private struct PeopleResponse: Decodable, PayloadTransformable {
    let names: [String]

    static let rules: [Rule] = [.unwrap("$.people")]

    static let transform: PayloadTransform? = { payload, context in
        guard case .array(let people) = payload else { throw PeopleError.notAList }
        let shout = context.value("shout", as: Bool.self) ?? false
        let names: [JSONValue] = try people.map { person in
            guard let first = person["first"]?.stringValue, let last = person["last"]?.stringValue else {
                throw PeopleError.incomplete(person)
            }
            let name = "\(first) \(last)"
            return .string(shout ? name.uppercased() : name)
        }
        return ["names": .array(names)]
    }
}

private enum PeopleError: Error, Equatable {
    case notAList
    case incomplete(JSONValue)
}

private struct PeopleEndpoint: Endpoint {
    typealias Root = PeopleResponse
    var context: DecodingContext?
    func content(from root: PeopleResponse) -> [String] { root.names }
}

/// A transform whose output JSON cannot hold.
private struct Infinite: Decodable, PayloadTransformable {
    static let transform: PayloadTransform? = { _, _ in .double(.infinity) }
}

/// `content(from:)` can refuse a root.
private struct FirstNameEndpoint: Endpoint {
    typealias Root = NamesResponse
    func content(from root: NamesResponse) throws -> String {
        guard let first = root.names.first else { throw PeopleError.notAList }
        return first
    }
}

@Suite struct TransformSeedTests {
    @Test func theSeedsSampleDecodesToItsResult() throws {
        // The seed's sample: a NamesResponse encoded with JSONEncoder.
        let data = try JSONEncoder().encode(NamesResponse(names: ["Dave", "Steve"]))
        #expect(try ResponseDecoder().decode(NamesEndpoint(), from: data, statusCode: 200) == ["Dave", "Steve"])
        #expect(try NamesEndpoint().decode(data, statusCode: nil) == ["Dave", "Steve"])
    }

    @Test func noDataIsItsOwnError() {
        let error = responseError { () throws(ResponseError) in try NamesEndpoint().decode(nil, statusCode: 200) }
        guard case .noData? = error else {
            Issue.record("expected .noData, got \(String(describing: error))")
            return
        }
        #expect(error?.description == "no data")
    }

    @Test func transformAfterRules() throws {
        let json = #"{"people": [{"first": "Dave", "last": "Lyon"}, {"first": "Steve", "last": "Jobs"}]}"#
        #expect(try PeopleEndpoint().decode(body(json), statusCode: 200) == ["Dave Lyon", "Steve Jobs"])
        #expect(try ResponseDecoder().decode(PeopleResponse.self, from: body(json)).names == ["Dave Lyon", "Steve Jobs"])
    }

    @Test func theContextReachesTheTransform() throws {
        let json = #"{"people": [{"first": "Dave", "last": "Lyon"}]}"#
        let shouting = DecodingContext(responseType: "people", values: ["shout": true])
        #expect(try PeopleEndpoint(context: shouting).decode(body(json), statusCode: 200) == ["DAVE LYON"])
        let decoder = ResponseDecoder(context: shouting)
        #expect(try decoder.decode(PeopleResponse.self, from: body(json)).names == ["DAVE LYON"])
    }

    @Test func aThrowingTransformIsATransformError() {
        let json = #"{"people": [{"first": "Dave"}]}"#
        let error = responseError { () throws(ResponseError) in try PeopleEndpoint().decode(body(json), statusCode: 200) }
        guard case .transform(let type, let underlying)? = error else {
            Issue.record("expected .transform, got \(String(describing: error))")
            return
        }
        #expect(type == "PeopleResponse")
        #expect(underlying as? PeopleError == .incomplete(["first": "Dave"]))
        #expect(error?.description.hasPrefix("transform of PeopleResponse failed: incomplete(") == true)
    }

    @Test func aTransformOutputJSONCannotHoldIsATransformError() {
        let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode(Infinite.self, from: body("{}")) }
        guard case .transform(_, let underlying)? = error else {
            Issue.record("expected .transform, got \(String(describing: error))")
            return
        }
        #expect((underlying as? ReshapeError)?.code == .invalidArgument)
    }

    @Test func theTransformSeesStrictJSON() {
        // Without rules the transform still reads the body with the engine's strict reader.
        let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode(Infinite.self, from: body("{,}")) }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.code == .invalidJSON)
        #expect(engine.line == 1)
        #expect(engine.column == 2)
    }

    @Test func aThrowingContentIsAContentError() throws {
        #expect(try FirstNameEndpoint().decode(body(#"{"names": ["a", "b"]}"#), statusCode: 201) == "a")
        let error = responseError { () throws(ResponseError) in try FirstNameEndpoint().decode(body(#"{"names": []}"#), statusCode: 200) }
        guard case .content(let type, let underlying)? = error else {
            Issue.record("expected .content, got \(String(describing: error))")
            return
        }
        #expect(type == "FirstNameEndpoint")
        #expect(underlying as? PeopleError == .notAList)
        #expect(error?.description == "content(from:) of FirstNameEndpoint failed: notAList")
    }
}
