import Foundation
import Reshape
import Testing

// Helpers shared by the suites of the `Reshape` module.

/// UTF-8 bytes of JSON text, as API clients receive them.
func body(_ text: String) -> Data {
    Data(text.utf8)
}

/// The error a decoding throws, or nil (recorded as an issue) when it succeeds.
func responseError<T>(
    _ sourceLocation: SourceLocation = #_sourceLocation, _ work: () throws(ResponseError) -> T
) -> ResponseError? {
    do {
        let value = try work()
        Issue.record("expected a ResponseError, decoded \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The engine's error, or nil (recorded as an issue) when the work succeeds.
func reshapeError<T>(
    _ sourceLocation: SourceLocation = #_sourceLocation, _ work: () throws(ReshapeError) -> T
) -> ReshapeError? {
    do {
        let value = try work()
        Issue.record("expected a ReshapeError, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite struct ModuleTests {
    @Test func importingReshapeBringsTheEngine() throws {
        // `import Reshape` alone gives ReshapeCore's API too.
        let rules = try Rules(json: #"[{"op": "wrap", "key": "a"}]"#)
        #expect(try rules.apply(to: "1") == #"{"a":1}"#)
        let value: JSONValue = ["b": [1, 2.5, "x", nil, true]]
        #expect(value.description == #"{"b":[1,2.5,"x",null,true]}"#)
    }
}
