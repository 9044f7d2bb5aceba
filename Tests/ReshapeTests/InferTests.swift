import Foundation
import Reshape
import Testing

/// `reshape infer` on samples of real APIs (written from their public docs): the rules and types
/// proposed from one sample decode that sample and a second, different one of the same API.
///
/// The generated Swift of each case is kept in `Inferred/`, wrapped in an enum of its own so the
/// types of different APIs do not meet, and compiled with this suite: the test fails when the
/// generator writes anything else (set `RESHAPE_UPDATE_INFERRED=1` to write the files again, which
/// fails the run, then read the difference and run the suite again).
@Suite struct InferTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Case: CustomStringConvertible, Sendable {
        let first: String
        let second: String
        let root: String
        let options: InferenceOptions
        var description: String { root }
    }

    static let cases: [Case] = [
        Case(first: "examples/firebase-users/users.json", second: "Tests/InferSamples/firebase-users.json", root: "Users", options: InferenceOptions(name: "users")),
        Case(first: "Tests/Fixtures/api-firebase-export/input.json", second: "Tests/InferSamples/firebase-export.json", root: "FirebaseExport", options: InferenceOptions()),
        Case(first: "Tests/Fixtures/api-github-issues/input.json", second: "Tests/InferSamples/github-issues.json", root: "Issues", options: InferenceOptions(objects: ["$[*].user"])),
        Case(first: "Tests/Fixtures/api-hacker-news-items/input.json", second: "Tests/InferSamples/hacker-news-items.json", root: "Items", options: InferenceOptions()),
        Case(first: "Tests/Fixtures/api-json-api-document/input.json", second: "Tests/InferSamples/json-api-document.json", root: "Articles", options: InferenceOptions()),
        Case(first: "Tests/Fixtures/api-reddit-listing/input.json", second: "Tests/InferSamples/reddit-listing.json", root: "Listing", options: InferenceOptions(unwrap: true)),
        Case(first: "Tests/Fixtures/api-stripe-list/input.json", second: "Tests/InferSamples/stripe-list.json", root: "Customers", options: InferenceOptions(maps: ["$.data[*].metadata"])),
        Case(first: "Tests/Fixtures/api-wordpress-posts/input.json", second: "Tests/InferSamples/wordpress-posts.json", root: "Posts", options: InferenceOptions(keys: .snakeCase)),
    ]

    static func read(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path))
    }

    static func inference(_ testCase: Case) throws -> Inference {
        try Inference.infer([JSONValue(json: [UInt8](read(testCase.first)))], options: testCase.options)
    }

    /// The file kept for a case: the generated source, its declarations in `enum Inferred<Root>`.
    static func kept(_ source: String, root: String) -> String {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let importLine = lines.firstIndex { $0 == "import Reshape" }!
        let header = lines[...importLine].joined(separator: "\n")
        let body = lines[(importLine + 2)...].map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
        return header + "\n\nenum Inferred\(root) {\n" + body.trimmingCharacters(in: .newlines) + "\n}\n"
    }

    @Test(arguments: cases) func generatedSwiftIsTheKeptFile(_ testCase: Case) throws {
        let source = try Self.inference(testCase).swift(root: testCase.root)
        let expected = Self.kept(source, root: testCase.root)
        let file = Self.root.appendingPathComponent("Tests/ReshapeTests/Inferred/\(testCase.root).swift")
        if ProcessInfo.processInfo.environment["RESHAPE_UPDATE_INFERRED"] == "1" {
            // Written, and never a pass: the suite then compiles the new file on its next run.
            try expected.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("wrote \(file.lastPathComponent); run the suite again without RESHAPE_UPDATE_INFERRED")
            return
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == expected)
    }

    /// Decodes a sample with a kept type, encodes the value again and compares it with the
    /// rules' output: every member the type holds has the output's value (numbers by value), and
    /// every member it lacks is `null` there. Nothing is dropped but what a `LossyArray` says.
    static func roundTrip<T: PayloadTransformable & Encodable>(_ type: T.Type, _ sample: String, rules: [Rule]) throws {
        let body = try read(sample)
        let value = try ResponseDecoder().decode(T.self, from: body)
        let encoded = try JSONValue(json: [UInt8](JSONEncoder().encode(value)))
        let reshaped = try Rules(rules).apply(to: JSONValue(json: [UInt8](body)))
        try #require(subset(encoded, of: reshaped, at: "$"), "\(sample) decoded as \(T.self) differs from the rules' output")
    }

    static func subset(_ encoded: JSONValue, of reshaped: JSONValue, at path: String) -> Bool {
        switch (encoded, reshaped) {
        case (.object(let mine), .object(let theirs)):
            for member in theirs.members where mine[member.key] == nil && !member.value.isNull {
                Issue.record("\(path)['\(member.key)'] is missing from the decoded value")
                return false
            }
            for member in mine.members {
                guard let other = theirs[member.key], subset(member.value, of: other, at: path + "['\(member.key)']") else {
                    Issue.record("\(path)['\(member.key)'] differs")
                    return false
                }
            }
            return true
        case (.array(let mine), .array(let theirs)):
            return mine.count == theirs.count && zip(mine, theirs).enumerated().allSatisfy { subset($1.0, of: $1.1, at: path + "[\($0)]") }
        case (.integer(let a), .double(let b)): return Double(a) == b
        case (.double(let a), .integer(let b)): return a == Double(b)
        default: return encoded == reshaped
        }
    }

    @Test func keptTypesDecodeBothSamplesOfEachAPI() throws {
        for testCase in Self.cases {
            let rules = [Rule.document(String(decoding: try Self.inference(testCase).rules.json(), as: UTF8.self))]
            for sample in [testCase.first, testCase.second] {
                switch testCase.root {
                case "Users": try Self.roundTrip(InferredUsers.Users.self, sample, rules: rules)
                case "FirebaseExport": try Self.roundTrip(InferredFirebaseExport.FirebaseExport.self, sample, rules: rules)
                case "Issues": try Self.roundTrip(InferredIssues.Issues.self, sample, rules: rules)
                case "Items": try Self.roundTrip(InferredItems.Items.self, sample, rules: rules)
                case "Articles": try Self.roundTrip(InferredArticles.Articles.self, sample, rules: rules)
                case "Listing": try Self.roundTrip(InferredListing.Listing.self, sample, rules: rules)
                case "Customers": try Self.roundTrip(InferredCustomers.Customers.self, sample, rules: rules)
                case "Posts": try Self.roundTrip(InferredPosts.Posts.self, sample, rules: rules)
                default: Issue.record("no kept type for \(testCase.root)")
                }
            }
        }
    }
}
