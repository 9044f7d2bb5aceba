import Foundation
import Testing

@testable import ReshapeCore

/// The public RFC 9535 compliance suite (Tests/jsonpath-cts, BSD-2), every case of it.
///
/// Every valid selector is run through `unwrap`: a non-singular path gives the nodelist in the
/// suite's order (or one of its allowed orders), duplicates included; a singular one gives its
/// value, or `rule_failed` when the nodelist is empty. Every selector the suite calls invalid must
/// be refused.
@Suite struct ComplianceTests {
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        let selector: String
        let document: JSONValue?
        let results: [[JSONValue]]
        let invalid: Bool
        var description: String { name }
    }

    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("jsonpath-cts/cts.json")
        guard let data = try? Data(contentsOf: url), let suite = try? JSONValue(json: [UInt8](data)),
            let tests = suite["tests"]?.arrayValue
        else { return [] }
        return tests.compactMap { test in
            guard let name = test["name"]?.stringValue, let selector = test["selector"]?.stringValue else { return nil }
            var results: [[JSONValue]] = []
            if let result = test["result"]?.arrayValue { results = [result] }
            if let alternatives = test["results"]?.arrayValue { results = alternatives.compactMap(\.arrayValue) }
            return Case(
                name: name, selector: selector, document: test["document"], results: results,
                invalid: test["invalid_selector"] == .bool(true))
        }
    }()

    static let supported = cases.filter { !$0.invalid }
    static let invalid = cases.filter(\.invalid)

    @Test func theSuiteIsThere() {
        #expect(Self.cases.count > 600)
        #expect(Self.supported.count == 456)
        #expect(Self.invalid.count > 200)
    }

    private func rules(_ selector: String) throws -> Rules {
        let path = String(decoding: try JSONValue.string(selector).json(), as: UTF8.self)
        return try Rules(json: #"[{"op": "unwrap", "path": \#(path)}]"#)
    }

    @Test(arguments: supported)
    func nodelist(_ test: Case) throws {
        let compiled = try rules(test.selector)
        let document = try #require(test.document)
        let isSingular = (try? JSONPathParser.parse(test.selector).get())?.isSingular ?? false
        let input = try document.json()
        switch Result(catching: { () throws(ReshapeError) -> [UInt8] in try compiled.apply(to: input) }) {
        case .success(let bytes):
            let output = try JSONValue(json: bytes)
            let nodelists = test.results.map { isSingular ? ($0.first ?? .null) : JSONValue.array($0) }
            #expect(nodelists.contains(output), "\(test.selector) gave \(output)")
        case .failure(let error):
            #expect(isSingular && test.results.allSatisfy(\.isEmpty), "\(test.selector): \(error)")
            #expect(error.code == .ruleFailed)
        }
    }

    @Test(arguments: invalid)
    func invalidSelectorIsRefused(_ test: Case) {
        #expect(throws: ReshapeError.self, "\(test.selector) was accepted") { try rules(test.selector) }
    }
}
