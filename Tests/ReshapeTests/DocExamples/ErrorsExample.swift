import Foundation
import Reshape
import Testing

/// docs/swift.md, "Errors".
@Suite struct ErrorsExample {
    struct User: Decodable, Equatable {
        let id: String
        let title: String
    }

    // example: errors-equatable
    struct Team: Decodable, Equatable {      // synthesized ==, through LossyArray's
        @LossyArray var members: [User]
    }
    // end example: errors-equatable

    @Test func ruleFailures() throws {
        let data = Data(#"{"u1": 7}"#.utf8)
        // example: errors-rule-failed
        var failed: String?
        do {
            _ = try ResponseDecoder(rules: [.keyedToArray]).decode([User].self, from: data)   // {"u1": 7}
        } catch {
            if case .reshape(let failure) = error, failure.code == .ruleFailed {
                failed = "\(failure.rule) \(failure.op) \(failure.path)"   // "1 keyedToArray $['u1']"
            }
        }
        // end example: errors-rule-failed
        #expect(failed == "1 keyedToArray $['u1']")
    }

    @Test func localizedAndEquatable() throws {
        let data = Data(#"[{"id": "a", "title": "T"}, {"id": "b", "title": 7}]"#.utf8)
        // example: errors-equatable
        let message: String
        do {
            message = "decoded \(try ResponseDecoder().decode([User].self, from: data).count)"   // [..., {"id": "b", "title": 7}]
        } catch {
            message = error.localizedDescription   // "decoding failed at $[1]['title']: expected String, found a number"
        }
        let teams = try ResponseDecoder().decode([Team].self, from: Data("[{\"members\": \(String(decoding: data, as: UTF8.self))}]".utf8))
        let same = teams[0] == Team(members: [User(id: "a", title: "T")])   // true: drops are not compared
        // end example: errors-equatable
        #expect(message == "decoding failed at $[1]['title']: expected String, found a number")
        #expect(same)
        #expect(teams[0].$members.drops.count == 1)
    }
}
