// Decoding a 10 MB Firebase-style users payload into [User]:
//   1. ResponseDecoder with the rule keyedToArray (engine reshape, then its IndexDecoder);
//   2. the seeds' way: JSONSerialization to a dictionary, a loop adding the id, JSONSerialization
//      back to data, JSONDecoder;
//   3. plain JSONDecoder on bytes already in the right shape (the floor).
// Targets (issue 11): (1) at least 10x faster than (2), and at most 1.0x the time of (3).
//
// Run: swift build --scratch-path .build-swift -c release --product ReshapeBenchmarks
//      .build-swift/release/ReshapeBenchmarks [--iterations N] [--megabytes M]
//      (--only plain|reshape|engine|seeds runs one way, without the comparison, for profiling;
//       --only ops times the engine alone on the same payload for several rule lists)
import Foundation
import Reshape

struct Address: Codable, Equatable {
    let street: String
    let city: String
    let zip: String
}

struct User: Codable, Equatable {
    let id: String
    let name: String
    let email: String
    let age: Int
    let active: Bool
    let score: Double
    let createdAt: Int64
    let address: Address
    let tags: [String]
}

enum BenchmarkFailure: Error, CustomStringConvertible {
    case notAnObject
    case recordNotAnObject(String)
    case mismatch(String)

    var description: String {
        switch self {
        case .notAnObject: "the payload is not a JSON object"
        case .recordNotAnObject(let key): "the record \(key) is not an object"
        case .mismatch(let what): "the three ways disagree: \(what)"
        }
    }
}

/// The seeds' way (seed 000's `PayloadTransformable.transform`, seed 002's `parseData`).
func decodeTheSeedsWay(_ data: Data) throws -> [User] {
    guard let json = try JSONSerialization.jsonObject(with: data, options: []) as? [String: Any] else {
        throw BenchmarkFailure.notAnObject
    }
    var records: [[String: Any]] = []
    records.reserveCapacity(json.count)
    for (key, value) in json {
        guard var record = value as? [String: Any] else { throw BenchmarkFailure.recordNotAnObject(key) }
        record["id"] = key
        records.append(record)
    }
    let shaped = try JSONSerialization.data(withJSONObject: records, options: [])
    return try JSONDecoder().decode([User].self, from: shaped)
}

func arguments() -> (iterations: Int, megabytes: Int, only: String?) {
    var iterations = 7
    var megabytes = 10
    var only: String? = nil
    var list = CommandLine.arguments.dropFirst().makeIterator()
    while let argument = list.next() {
        switch argument {
        case "--iterations": iterations = list.next().flatMap { Int($0) }.map { max(1, $0) } ?? iterations
        case "--megabytes": megabytes = list.next().flatMap { Int($0) }.map { max(1, $0) } ?? megabytes
        case "--only": only = list.next()
        default: print("ignoring unknown argument \(argument)")
        }
    }
    return (iterations, megabytes, only)
}

func cpuModel() -> String {
    guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
    for line in info.split(separator: "\n") where line.hasPrefix("model name") {
        if let colon = line.firstIndex(of: ":") {
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }
    return "unknown"
}

/// Runs `work` once to warm up, then `iterations` times; returns the times in milliseconds, sorted.
func measure(_ iterations: Int, _ work: () throws -> Void) rethrows -> [Double] {
    try work()
    var times: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let elapsed = try clock.measure(work)
        times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    return times.sorted()
}

func median(_ sorted: [Double]) -> Double {
    sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(_ value: Double, _ digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}

let (iterations, megabytes, only) = arguments()
let payload = Payload(targetBytes: megabytes * 1_000_000)
let keyed = Data(payload.keyed)
let preShaped = Data(payload.array)
let decoder = try ResponseDecoder(rules: [.keyedToArray])
let engineRules = try Rules([.keyedToArray])

print("Reshape benchmark: Firebase-style users payload into [User]")
print("command:    swift build --scratch-path .build-swift -c release --product ReshapeBenchmarks && .build-swift/release/ReshapeBenchmarks --iterations \(iterations) --megabytes \(megabytes)")
print("machine:    \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores (nproc), \(ProcessInfo.processInfo.operatingSystemVersionString)")
print("payload:    \(payload.count) users, \(payload.keyed.count) bytes keyed, \(payload.array.count) bytes pre-shaped")
print("iterations: \(iterations) rounds of every way, after one warm-up round; times in ms (median, min, max)")

if only == "ops" {
    // The engine alone, for rules that leave the records raw and for rules that look everywhere.
    let lists: [(String, [Rule])] = [
        ("[] (re-write in canonical form)", []),
        ("keyedToArray", [.keyedToArray]),
        ("keyedToArray, wrapIn", [.keyedToArray(idKey: "uid", wrapIn: "users")]),
        ("keyedToArray, remove $[*].tags", [.keyedToArray, .remove("$[*].tags")]),
        ("emptyObjectToNull ($..*)", [.emptyObjectToNull]),
        ("convertKeys snake_case (deep: the records' names too, so the whole tree)", [.convertKeys(to: .snakeCase)]),
    ]
    for (name, list) in lists {
        let rules = try Rules(list)
        let times = try measure(iterations, { _ = try rules.apply(to: payload.keyed) })
        print("\(name): median \(format(median(times))) ms, min \(format(times[0])) ms")
    }
    exit(0)
}

if let only {
    let work: () throws -> Void
    switch only {
    case "plain": work = { _ = try JSONDecoder().decode([User].self, from: preShaped) }
    case "reshape": work = { _ = try decoder.decode([User].self, from: keyed) }
    case "engine": work = { _ = try engineRules.apply(to: payload.keyed) }
    default: work = { _ = try decodeTheSeedsWay(keyed) }
    }
    let times = try measure(iterations, work)
    print("\(only): median \(format(median(times))) ms, min \(format(times[0])) ms")
    exit(0)
}

// The three ways must agree before they are timed.
let viaReshape = try decoder.decode([User].self, from: keyed)
let viaPlain = try JSONDecoder().decode([User].self, from: preShaped)
let viaSeeds = try decodeTheSeedsWay(keyed)
guard viaReshape == viaPlain else { throw BenchmarkFailure.mismatch("ResponseDecoder vs plain JSONDecoder") }
guard viaSeeds.sorted(by: { $0.id < $1.id }) == viaPlain.sorted(by: { $0.id < $1.id }) else {
    throw BenchmarkFailure.mismatch("the seeds' way vs plain JSONDecoder")
}
guard viaReshape.count == payload.count else { throw BenchmarkFailure.mismatch("count") }

// The ways run in rounds (one of each per round, after one warm-up round), so that each meets the
// same heap: the allocator's state after one way changes the next one's time by up to 40%.
let ways: [(name: String, work: () throws -> Void)] = [
    ("plain", { _ = try JSONDecoder().decode([User].self, from: preShaped) }),
    ("reshape", { _ = try decoder.decode([User].self, from: keyed) }),
    ("engine", { _ = try engineRules.apply(to: payload.keyed) }),
    ("seeds", { _ = try decodeTheSeedsWay(keyed) }),
]
var times: [String: [Double]] = [:]
let clock = ContinuousClock()
for round in 0...iterations {
    for way in ways {
        let elapsed = try clock.measure(way.work)
        if round > 0 {
            times[way.name, default: []].append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
    }
}
let plain = (times["plain"] ?? []).sorted()
let reshape = (times["reshape"] ?? []).sorted()
let engineOnly = (times["engine"] ?? []).sorted()
let seeds = (times["seeds"] ?? []).sorted()

func row(_ name: String, _ times: [Double]) {
    let padded = name.padding(toLength: 44, withPad: " ", startingAt: 0)
    print("\(padded) \(format(median(times)).leftPadded(8)) \(format(times[0]).leftPadded(8)) \(format(times[times.count - 1]).leftPadded(8))")
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

print("")
print("way".padding(toLength: 44, withPad: " ", startingAt: 0) + "  median      min      max")
row("plain JSONDecoder, pre-shaped bytes", plain)
row("ResponseDecoder, rule keyedToArray", reshape)
row("  of which the engine alone (Rules.apply)", engineOnly)
row("the seeds' way (JSONSerialization x2)", seeds)

let speedup = median(seeds) / median(reshape)
let overhead = median(reshape) / median(plain)
print("")
print("seeds' way / ResponseDecoder:       \(format(speedup, 2))x faster  (target >= 10x: \(speedup >= 10 ? "met" : "NOT met"))")
print("ResponseDecoder / plain JSONDecoder: \(format(overhead, 2))x the time (target <= 1.0x: \(overhead <= 1.0 ? "met" : "NOT met"))")
