import Foundation
import Reshape
import ReshapeCore
import Testing

/// `ResponseDecoder` decodes the engine's output with its own decoder; whatever a type reads, it
/// must read what `JSONDecoder` reads from the same bytes, and fail where and as it fails.
@Suite struct IndexDecoderTests {
    /// A rule that changes nothing, so that the engine runs and its output is decoded in place.
    static let noOp: [Rule] = [.remove("$['__absent__']")]

    /// Decodes `json` both ways: with `JSONDecoder` as configured, and through the engine.
    static func both<T: Decodable>(
        _ type: T.Type, _ json: String, configure: (JSONDecoder) -> Void = { _ in }
    ) throws -> (plain: Result<T, any Error>, reshaped: Result<T, any Error>) {
        let template = JSONDecoder()
        configure(template)
        let data = Data(json.utf8)
        let plain = Result { try template.decode(T.self, from: data) }
        let decoder = try ResponseDecoder(rules: noOp, decoder: template)
        let reshaped = Result { () throws -> T in
            do {
                return try decoder.decode(T.self, from: data)
            } catch let error as ResponseError {
                if case .decoding(_, _, let underlying) = error { throw underlying }
                throw error
            }
        }
        return (plain, reshaped)
    }

    /// An error as a line that says everything tests compare: case, type, coding path, description.
    static func summary(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { key in key.intValue.map { "\(key.stringValue)#\($0)" } ?? key.stringValue }.joined(separator: "/")
        }
        switch error as? DecodingError {
        case .typeMismatch(let type, let context)?: return "typeMismatch \(type) at \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context)?: return "valueNotFound \(type) at \(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context)?: return "keyNotFound \(key.stringValue) at \(path(context)): \(context.debugDescription)"
        // Not its text: JSONDecoder's may quote the value ("Parsed JSON number 128 does not fit
        // in Int8."); ours never does (`valuesNeverReachMessages`).
        case .dataCorrupted(let context)?: return "dataCorrupted at \(path(context))"
        default: return "\(error)"
        }
    }

    static func expectSame<T: Decodable & Equatable>(
        _ type: T.Type, _ json: String, configure: (JSONDecoder) -> Void = { _ in }, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (plain, reshaped) = try both(type, json, configure: configure)
        switch (plain, reshaped) {
        case (.success(let expected), .success(let value)):
            #expect(value == expected, sourceLocation: sourceLocation)
        case (.failure(let expected), .failure(let error)):
            #expect(summary(error) == summary(expected), sourceLocation: sourceLocation)
        default:
            Issue.record("JSONDecoder: \(plain), ResponseDecoder: \(reshaped)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Values

    struct Address: Codable, Equatable {
        let street: String
        let zip: String?
    }

    enum Plan: String, Codable, Equatable {
        case free, pro
    }

    struct Everything: Codable, Equatable {
        let flag: Bool
        let text: String
        let real: Double
        let single: Float
        let int: Int
        let int8: Int8
        let int16: Int16
        let int32: Int32
        let int64: Int64
        let uint: UInt
        let uint8: UInt8
        let uint16: UInt16
        let uint32: UInt32
        let uint64: UInt64
        let present: Int?
        let explicitNull: String?
        let missing: Double?
        let list: [Int]
        let grid: [[Int]]
        let tags: Set<String>
        let counts: [String: Int]
        let address: Address
        let addresses: [Address?]
        let plan: Plan
        let url: URL
        let price: Decimal
        let when: Date
        let bytes: Data
        let any: JSONValue
    }

    static let everything = #"""
        {"flag":true,"text":"a \"quoted\" \\ line\nnext \u00e9 \ud83d\ude00 /","real":-1.5e-3,"single":0.25,
         "int":-9223372036854775808,"int8":-128,"int16":32767,"int32":-2147483648,"int64":9223372036854775807,
         "uint":18446744073709551615,"uint8":255,"uint16":65535,"uint32":4294967295,"uint64":0,
         "present":7,"explicitNull":null,"list":[1,2,3],"grid":[[],[1],[2,3]],"tags":["b","a"],
         "counts":{"x_y":1,"z":2},"address":{"street":"Main","zip":null},"addresses":[null,{"street":"S"}],
         "plan":"pro","url":"https://example.com/a?b=c","price":12.3400,"when":1700000000.5,
         "bytes":"aGVsbG8=","any":{"k":[1,"two",null,true,{"d":2.5}]}}
        """#

    @Test func everyKindOfValueDecodesAsJSONDecoderDecodesIt() throws {
        try Self.expectSame(Everything.self, Self.everything)
        let (_, reshaped) = try Self.both(Everything.self, Self.everything)
        let value = try reshaped.get()
        #expect(value.text == "a \"quoted\" \\ line\nnext é 😀 /")
        #expect(value.int == .min && value.uint == .max && value.price == Decimal(string: "12.34"))
    }

    @Test func topLevelFragmentsAndContainers() throws {
        try Self.expectSame(Int.self, "42")
        try Self.expectSame(String.self, #""x""#)
        try Self.expectSame(Bool.self, "false")
        try Self.expectSame(Int?.self, "null")
        try Self.expectSame([String: [Int]].self, #"{"a":[1],"b":[]}"#)
        try Self.expectSame([Int: String].self, #"{"1":"a","20":"b"}"#)
        try Self.expectSame([Double].self, "[1,2.5,-0,1e10]")
    }

    /// Names with escapes, and a member whose name another member's bytes start with.
    @Test func memberNamesAreMatchedExactly() throws {
        struct Names: Codable, Equatable {
            let quote: Int
            let quoted: Int
            let tab: Int
            enum CodingKeys: String, CodingKey {
                case quote = "q\"", quoted = "q\"d", tab = "\t"
            }
        }
        try Self.expectSame(Names.self, #"{"q\"d":2,"\t":3,"q\"":1}"#)
        let (_, reshaped) = try Self.both(Names.self, #"{"q\u0022d":2,"\u0009":3,"q\"":1}"#)
        #expect(try reshaped.get() == Names(quote: 1, quoted: 2, tab: 3))
    }

    /// Members asked for out of order, twice, and only some of them: the lookup starts after the
    /// member found last, and must still find every one.
    @Test func membersInAnyOrder() throws {
        struct Backwards: Decodable, Equatable {
            let values: [Int]
            enum CodingKeys: String, CodingKey { case a, b, c, d }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                values = try [CodingKeys.d, .b, .d, .a, .c, .a].map { try container.decode(Int.self, forKey: $0) }
                    + [container.contains(.a) ? 1 : 0, container.allKeys.count]
            }
        }
        try Self.expectSame(Backwards.self, #"{"a":1,"b":{"x":[1,{"y":2}]},"c":3,"d":4}"#.replacingOccurrences(of: #"{"x":[1,{"y":2}]}"#, with: "2"))
        try Self.expectSame([Backwards].self, #"[{"d":4,"c":3,"b":2,"a":1},{"a":5,"b":6,"c":7,"d":8}]"#)
    }

    /// Hand-written `init(from:)`s: nested containers, `superDecoder`, `decodeNil`, unkeyed reads.
    @Test func handWrittenDecodingPaths() throws {
        struct Manual: Decodable, Equatable {
            var parts: [String] = []
            enum Keys: String, CodingKey { case outer, list, absent, base }
            enum Inner: String, CodingKey { case name, more }
            init(from decoder: any Decoder) throws {
                let root = try decoder.container(keyedBy: Keys.self)
                let outer = try root.nestedContainer(keyedBy: Inner.self, forKey: .outer)
                parts.append(try outer.decode(String.self, forKey: .name))
                var more = try outer.nestedUnkeyedContainer(forKey: .more)
                while !more.isAtEnd {
                    if try more.decodeNil() { parts.append("nil"); continue }
                    var nested = try more.nestedUnkeyedContainer()
                    parts.append(String(try nested.decode(Int.self)))
                }
                var list = try root.nestedUnkeyedContainer(forKey: .list)
                let element = try list.nestedContainer(keyedBy: Inner.self)
                parts.append(try element.decode(String.self, forKey: .name))
                parts.append(try list.superDecoder().singleValueContainer().decode(String.self))
                parts.append(String(try root.superDecoder(forKey: .absent).singleValueContainer().decodeNil()))
                parts.append(try root.superDecoder().singleValueContainer().decode(String.self))
                parts.append(String(try root.decodeNil(forKey: .base)))
                parts.append(root.codingPath.count == 0 ? "root" : "deep")
            }
        }
        try Self.expectSame(Manual.self, #"{"outer":{"name":"o","more":[[1],null,[2]]},"list":[{"name":"e"},"s"],"super":"up","base":null}"#)
    }

    /// Property wrappers and the diagnostics sink go through the decoder as through `JSONDecoder`.
    @Test func lossyArraysDropTheSameElements() throws {
        struct Page: Decodable, Equatable {
            @LossyArray var items: [Address]
        }
        try Self.expectSame(Page.self, #"{"items":[{"street":"a"},{"street":1},null,{"street":"b","zip":"z"}]}"#)
        let decoder = try ResponseDecoder(rules: Self.noOp)
        let (page, diagnostics) = try decoder.decodeWithDiagnostics(
            Page.self, from: Data(#"{"items":[{"street":"a"},{"street":1}]}"#.utf8))
        #expect(page.items == [Address(street: "a", zip: nil)])
        #expect(diagnostics.map(\.description) == ["dropped $['items'][1]: at $['items'][1]['street']: expected String, found a number"])
    }

    // MARK: - Strategies

    struct Stamped: Codable, Equatable {
        let createdAt: Date
        let payloadBytes: Data
        let ratio: Double
        let byName: [String: Int]
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5])
    func strategiesAreJSONDecoders(_ variant: Int) throws {
        let json: String
        let configure: (JSONDecoder) -> Void
        switch variant {
        case 0:
            json = #"{"created_at":1700000000,"payload_bytes":"AQID","ratio":"+inf","by_name":{"snake_key":1}}"#
            configure = {
                $0.keyDecodingStrategy = .convertFromSnakeCase
                $0.dateDecodingStrategy = .secondsSince1970
                $0.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
            }
        case 1:
            json = #"{"createdAt":1700000000123,"payloadBytes":[1,2,3],"ratio":"-inf","byName":{}}"#
            configure = {
                $0.dateDecodingStrategy = .millisecondsSince1970
                $0.dataDecodingStrategy = .deferredToData
                $0.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
            }
        case 2:
            json = #"{"createdAt":"2024-02-29T12:00:00Z","payloadBytes":"not base64!","ratio":1,"byName":{}}"#
            configure = { $0.dateDecodingStrategy = .iso8601 }
        case 3:
            json = #"{"createdAt":"2024-02-29","payloadBytes":"","ratio":1,"byName":{}}"#
            configure = { $0.dateDecodingStrategy = .iso8601 }
        case 4:
            json = #"{"CREATEDAT":"day 3","PAYLOADBYTES":"xyz","RATIO":2,"BYNAME":{"KEEP":1}}"#
            configure = {
                $0.keyDecodingStrategy = .custom { path in
                    AnyKey(path.last.map { $0.stringValue.prefix(1).lowercased() + $0.stringValue.dropFirst().lowercased() } ?? "")
                }
                $0.dateDecodingStrategy = .custom { decoder in
                    let text = try decoder.singleValueContainer().decode(String.self)
                    guard let day = Double(text.dropFirst(4)) else {
                        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no day in \(text)"))
                    }
                    return Date(timeIntervalSince1970: day * 86_400)
                }
                $0.dataDecodingStrategy = .custom { decoder in Data(try decoder.singleValueContainer().decode(String.self).utf8.reversed()) }
            }
        default:
            json = #"{"createdAt":0,"payloadBytes":"","ratio":"nan","byName":{}}"#
            configure = { _ in }
        }
        if variant == 3 {
            // The one difference: `JSONDecoder` reports a date that is not ISO 8601 at the path of
            // the object holding it; the date's own path says more.
            let (plain, reshaped) = try Self.both(Stamped.self, json, configure: configure)
            guard case .failure(let expected) = plain, case .failure(let error) = reshaped else {
                Issue.record("expected both to fail")
                return
            }
            #expect(Self.summary(expected) == "dataCorrupted at ")
            #expect(Self.summary(error) == "dataCorrupted at createdAt")
            #expect((error as? DecodingError).map { "\($0)" }?.contains("expected an ISO 8601 date, found a string that is not one") == true)
            return
        }
        try Self.expectSame(Stamped.self, json, configure: configure)
    }

    /// `JSONDecoder` converts member names with a key strategy but never the keys of a `[String: V]`.
    @Test func dictionaryKeysAreNeverConverted() throws {
        struct Holder: Codable, Equatable {
            let innerMap: [String: [String: Int]]
            let firstName: String
        }
        let json = #"{"inner_map":{"a_b":{"c_d":1}},"first_name":"x","first_name_":"y"}"#
        try Self.expectSame(Holder.self, json, configure: { $0.keyDecodingStrategy = .convertFromSnakeCase })
        let (_, reshaped) = try Self.both(Holder.self, json) { $0.keyDecodingStrategy = .convertFromSnakeCase }
        #expect(try reshaped.get().innerMap == ["a_b": ["c_d": 1]])
    }

    // MARK: - Errors

    struct Strict: Decodable {
        let id: Int
        let name: String
        let flag: Bool
        let nested: Address
        let list: [Int]
    }

    static let failing: [String] = [
        #"{"id":"7","name":"n","flag":true,"nested":{"street":"s"},"list":[]}"#,
        #"{"id":7,"name":null,"flag":true,"nested":{"street":"s"},"list":[]}"#,
        #"{"id":7,"name":"n","flag":null,"nested":{"street":"s"},"list":[]}"#,
        #"{"id":7,"name":"n","flag":1,"nested":{"street":"s"},"list":[]}"#,
        #"{"id":7,"name":"n","flag":true,"nested":{},"list":[]}"#,
        #"{"id":7,"name":"n","flag":true,"nested":null,"list":[]}"#,
        #"{"id":7,"name":"n","flag":true,"nested":[],"list":[]}"#,
        #"{"id":7,"name":"n","flag":true,"nested":{"street":"s","zip":5},"list":[]}"#,
        #"{"id":7,"name":"n","flag":true,"nested":{"street":"s"},"list":{}}"#,
        #"{"id":7,"name":"n","flag":true,"nested":{"street":"s"},"list":[1,"2"]}"#,
        #"{"id":7,"name":"n","flag":true,"nested":{"street":"s"},"list":[1,null]}"#,
        #"{"id":7,"name":"n","flag":true,"nested":{"street":"s"}}"#,
        #"{"name":"n"}"#,
        #"[]"#,
        #""text""#,
        #"null"#,
    ]

    @Test(arguments: failing)
    func errorsAreJSONDecoders(_ json: String) throws {
        let (plain, reshaped) = try Self.both(Strict.self, json)
        guard case .failure(let expected) = plain, case .failure(let error) = reshaped else {
            Issue.record("expected both to fail: \(plain), \(reshaped)")
            return
        }
        #expect(Self.summary(error) == Self.summary(expected))
    }

    @Test func unkeyedContainersAtTheirEndSayWhere() throws {
        struct Pair: Decodable {
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                _ = try container.decode(Int.self)
                _ = try container.decode(Int.self)
            }
        }
        try Self.expectSameFailure(Pair.self, "[1]")
        try Self.expectSameFailure([Pair].self, "[[1,2],[3]]")
    }

    static func expectSameFailure<T: Decodable>(_ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (plain, reshaped) = try both(type, json)
        guard case .failure(let expected) = plain, case .failure(let error) = reshaped else {
            Issue.record("expected both to fail", sourceLocation: sourceLocation)
            return
        }
        #expect(summary(error) == summary(expected), sourceLocation: sourceLocation)
    }

    // MARK: - Numbers

    /// Integers are read exactly: an integral number in any notation is one, a fraction never is,
    /// and a number that does not fit is an error at its own path.
    @Test func integersAreReadExactly() throws {
        struct Number: Decodable { let n: Int8 }
        let decoder = try ResponseDecoder(rules: Self.noOp)
        func read(_ text: String) -> String {
            do {
                return String(try decoder.decode(Number.self, from: Data(#"{"n":\#(text)}"#.utf8)).n)
            } catch {
                return error.description
            }
        }
        #expect(read("34.0") == "34")
        #expect(read("3.4e1") == "34")
        #expect(read("1e2") == "100")
        #expect(read("0.0500e3") == "50")
        #expect(read("-128") == "-128")
        #expect(read("-0") == "0")
        #expect(read("0e400") == "0")
        #expect(read("1.5") == "decoding failed at $['n']: expected Int8, found a number it cannot represent")
        #expect(read("128") == "decoding failed at $['n']: expected Int8, found a number it cannot represent")
        #expect(read("1e3") == "decoding failed at $['n']: expected Int8, found a number it cannot represent")
        #expect(read("1.0000000000000001") == "decoding failed at $['n']: expected Int8, found a number it cannot represent")
    }

    @Test func realsOutOfRangeAreErrors() throws {
        struct Real: Decodable { let r: Float }
        let decoder = try ResponseDecoder(rules: Self.noOp)
        func read(_ text: String) -> String {
            do {
                return String(try decoder.decode(Real.self, from: Data(#"{"r":\#(text)}"#.utf8)).r)
            } catch {
                return error.description
            }
        }
        #expect(read("0.5") == "0.5")
        #expect(read("0e-999") == "0.0")
        #expect(read("1e39") == "decoding failed at $['r']: expected Float, found a number it cannot represent")
        #expect(read("1e-999") == "decoding failed at $['r']: expected Float, found a number it cannot represent")
    }

    /// Decoding recurses once per level, so nesting is refused where `JSONDecoder` refuses it, with
    /// its error, and accepted up to there.
    @Test func nestingDeeperThanJSONDecodersLimitIsItsError() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        try Self.expectSame(JSONValue.self, deepest)
        let (_, reshaped) = try Self.both(JSONValue.self, deepest)
        #expect((try? reshaped.get()) != nil)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        let (plain, refused) = try Self.both(JSONValue.self, tooDeep)
        guard case .failure(let expected) = plain, case .failure(let error) = refused else {
            Issue.record("expected both to refuse 513 levels")
            return
        }
        #expect(Self.summary(error) == Self.summary(expected))
        #expect(Self.summary(error) == "dataCorrupted at ")
        #expect((error as? DecodingError).map { "\($0)" }?.contains("The given data was not valid JSON.") == true)
    }

    // MARK: - Random documents

    /// Seeded random documents decode to the same `JSONValue` both ways (object members compared
    /// without their order, which `JSONDecoder` does not keep).
    @Test func randomDocumentsDecodeTheSame() throws {
        var random = SplitMix(seed: 0x5EED)
        for _ in 0..<300 {
            let json = Self.randomJSON(&random, depth: 0)
            let (plain, reshaped) = try Self.both(JSONValue.self, json)
            let expected = try plain.get()
            let value = try reshaped.get()
            #expect(Self.sorted(value) == Self.sorted(expected), "\(json)")
        }
    }

    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var result = JSONObject()
            for member in object.members.sorted(by: { $0.key < $1.key }) { result[member.key] = sorted(member.value) }
            return .object(result)
        case .array(let elements):
            return .array(JSONArray(elements.map(sorted)))
        default:
            return value
        }
    }

    static func randomJSON(_ random: inout SplitMix, depth: Int) -> String {
        let choice = depth > 4 ? random.next(5) : random.next(8)
        switch choice {
        case 0: return "null"
        case 1: return random.next(2) == 0 ? "true" : "false"
        case 2: return String(Int64(bitPattern: random.state) >> Int64(random.next(60)))
        case 3: return "\(random.next(1000)).\(random.next(100))e\(Int(random.next(20)) - 10)"
        case 4:
            let pieces = ["a", "é", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", " ", "_x", "1"]
            return "\"" + (0..<random.next(5)).map { _ in pieces[Int(random.next(UInt64(pieces.count)))] }.joined() + "\""
        case 5, 6:
            let names = ["a", "b", "snake_case", "x\\\"y", "é"]
            var used = Set<String>()
            var members: [String] = []
            for _ in 0..<random.next(5) {
                let name = names[Int(random.next(UInt64(names.count)))]
                guard used.insert(name).inserted else { continue }
                members.append("\"\(name)\":\(randomJSON(&random, depth: depth + 1))")
            }
            return "{" + members.joined(separator: ",") + "}"
        default:
            return "[" + (0..<random.next(4)).map { _ in randomJSON(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        }
    }
}

/// A coding key for a custom key strategy in the tests.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A small seeded generator, so that a failing document can be found again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) % max(bound, 1)
    }
}
