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

/// Typed-layer errors are one safe line too, whatever a response holds (issue 8, row 6).
@Suite struct ResponseErrorTextTests {
    @Test func aBodyInAnHTTPErrorCannotStartALineOrRecolorATerminal() {
        let error = ResponseError.httpStatus(500, body: Data("oops\n\u{1B}[31mFAKE\r\u{202E}".utf8))
        #expect(error.description == #"HTTP status 500: oops\n\u001B[31mFAKE\r\u202E"#)
    }

    @Test func aDecodingErrorAtAHostileKeyIsEscaped() throws {
        struct Record: Decodable { let name: String }
        let key = "a\u{1B}[2J\u{2028}b"
        let json = "{\"\(key.replacingOccurrences(of: "\u{1B}", with: "\\u001b"))\": {\"name\": 1}}"
        let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode([String: Record].self, from: body(json)) }
        let text = error?.description ?? ""
        #expect(text.hasPrefix(#"decoding failed at $['a\u001b[2J\u2028b']['name']"#), "\(text)")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x2028 })
    }
}
