import Foundation
import ReshapeCore
import Testing

/// `JSONValue` keeps member order and numbers, and goes through rules like text does.
@Suite struct JSONValueTests {
    @Test func readsAndWritesWithoutLoss() throws {
        let text = #"{"z":1,"a":[true,null,2.5,"é"],"big":123456789012345678901234567890,"m":{}}"#
        let value = try JSONValue(json: text)
        #expect(value["z"] == .integer(1))
        #expect(value["a"]?[2] == .double(2.5))
        #expect(value["big"] == .number("123456789012345678901234567890"))
        #expect(value.objectValue?.keys == ["z", "a", "big", "m"])
        #expect(String(decoding: try value.json(), as: UTF8.self) == text)
    }

    @Test func literalsBuildOrderedObjects() throws {
        let value: JSONValue = ["b": 1, "a": [1.5, "x", nil, true]]
        #expect(String(decoding: try value.json(), as: UTF8.self) == #"{"b":1,"a":[1.5,"x",null,true]}"#)
        var object = JSONObject()
        object["one"] = 1
        object["two"] = 2
        object["one"] = "first"
        object["two"] = nil
        #expect(object.keys == ["one"])
        #expect(object["one"] == "first")
    }

    @Test func rulesApplyToValues() throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray", "idKey": "objectId"}]"#)
        let value: JSONValue = ["u2": ["name": "A"], "u1": ["name": "B"]]
        #expect(try rules.apply(to: value) == [["objectId": "u2", "name": "A"], ["objectId": "u1", "name": "B"]])
    }

    @Test func valuesJSONCannotHoldAreRejected() {
        #expect(throws: ReshapeError(.invalidArgument, "JSON has no nan")) { try JSONValue.double(.nan).json() }
        #expect(throws: ReshapeError(.invalidArgument, "\"0x10\" is not a JSON number")) { try JSONValue.number("0x10").json() }
    }

    @Test func codableRoundTripThroughFoundation() throws {
        let value: JSONValue = ["list": [1, 2.5, "s", nil, false, ["k": "v"]]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }
}

extension JSONValueTests {
    @Test func largeObjectsStayLinear() throws {
        // A Firebase-sized collection: quadratic insertion would take minutes here.
        let count = 200_000
        let text = "{" + (0..<count).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let value = try JSONValue(json: text)
        #expect(value.objectValue?.count == count)
        #expect(value["k199999"] == .integer(199_999))
        var object = value.objectValue ?? JSONObject()
        object["k5"] = nil
        #expect(object["k6"] == .integer(6))
        #expect(object.keys.prefix(6) == ["k0", "k1", "k2", "k3", "k4", "k6"])
    }
}

/// Row 8 of issue 8: names and strings are compared by their exact scalars, not by Swift's
/// canonical equivalence, so nothing is merged or lost.
extension JSONValueTests {
    static let precomposed = "\u{E9}"  // é
    static let decomposed = "e\u{301}"  // e + combining acute

    @Test func canonicallyEquivalentNamesAreTwoMembers() throws {
        let text = #"{"\#(Self.precomposed)":1,"\#(Self.decomposed)":2}"#
        let value = try JSONValue(json: text)
        #expect(value.objectValue?.count == 2)
        #expect(value[Self.precomposed] == .integer(1))
        #expect(value[Self.decomposed] == .integer(2))
        #expect(String(decoding: try value.json(), as: UTF8.self) == text)
        var object = JSONObject()
        object[Self.precomposed] = 1
        object[Self.decomposed] = 2
        #expect(object.keys.map { Array($0.unicodeScalars) } == [Array(Self.precomposed.unicodeScalars), Array(Self.decomposed.unicodeScalars)])
    }

    @Test func equalityAndHashingAreExact() throws {
        #expect(JSONValue.string(Self.precomposed) != .string(Self.decomposed))
        #expect(JSONValue.object([Self.precomposed: 1]) != .object([Self.decomposed: 1]))
        #expect(Set([JSONValue.string(Self.precomposed), .string(Self.decomposed)]).count == 2)
        #expect(JSONValue.integer(1) != .double(1))
        let nested: JSONValue = ["a": [1, ["b": "c"]], "d": nil]
        #expect(nested == ["a": [1, ["b": "c"]], "d": nil])
        #expect(nested.hashValue == (["a": [1, ["b": "c"]], "d": nil] as JSONValue).hashValue)
        #expect(nested != ["d": nil, "a": [1, ["b": "c"]]])
    }

    @Test func defaultValuesAndTransformsKeepBothMembers() throws {
        let value = #"{"\#(Self.precomposed)":1,"\#(Self.decomposed)":2}"#
        let rules = try Rules(json: #"[{"op":"default","key":"k","value":\#(value)}]"#)
        #expect(try rules.apply(to: "{}") == #"{"k":\#(value)}"#)
        #expect(try rules.apply(to: JSONValue.object([:])) == ["k": try JSONValue(json: value)])
    }

    @Test func deepValuesNeverRecurse() throws {
        // Read, compared, hashed, written and released on a 64 KiB stack, at the depth limit.
        let depth = Limits.defaultMaxDepth
        let texts = [
            String(repeating: #"{"a":["#, count: depth / 2) + String(repeating: "]}", count: depth / 2),
            String(repeating: "[", count: depth) + String(repeating: "]", count: depth),
            String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth),
        ]
        for text in texts {
            let same = HostileInputTests.onSmallStack { () -> Bool in
                guard let value = try? JSONValue(json: text), let again = try? JSONValue(json: text) else { return false }
                let written = (try? value.json()).map { String(decoding: $0, as: UTF8.self) }
                return value == again && value.hashValue == again.hashValue && written == text
            }
            #expect(same, "\(text.prefix(12))")
        }
        // Built in Swift far deeper than JSON allows, then released on a small stack.
        var deep: JSONValue = .null
        for level in 0..<100_000 { deep = level % 2 == 0 ? [deep] : ["k": deep] }
        let released = HostileInputTests.onSmallStack { [deep] () -> Bool in
            var local = deep
            local = .null
            return local.isNull
        }
        deep = .null
        #expect(released)
    }
}
