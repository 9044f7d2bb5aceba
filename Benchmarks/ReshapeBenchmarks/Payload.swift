/// A deterministic Firebase-style users payload: `{"<push id>": {user}, ...}` (what Firebase sends
/// for /users.json), and the same users pre-shaped as `[{"id": "<push id>", ...}]`.
struct Payload {
    /// The Firebase-shaped JSON.
    let keyed: [UInt8]
    /// The same users as an array with the id inside each record: what `[User]` decodes from.
    let array: [UInt8]
    /// The number of users.
    let count: Int

    /// Generates users until the keyed payload reaches `targetBytes`.
    init(targetBytes: Int, seed: UInt64 = 0x5EED) {
        var random = SplitMix64(seed: seed)
        var keyed = "{"
        var array = "["
        keyed.reserveCapacity(targetBytes + 1024)
        array.reserveCapacity(targetBytes + 1024)
        var count = 0
        let cities = ["Springfield", "Shelbyville", "Ogdenville", "North Haverbrook", "Capital City"]
        let streets = ["Elm Street", "Oak Avenue", "Maple Road", "Evergreen Terrace", "Main Street"]
        let allTags = ["swift", "ios", "firebase", "beta", "admin", "tester", "android", "web"]
        while keyed.utf8.count < targetBytes {
            let id = Self.pushID(&random, count)
            let tags = (0..<Int(random.next() % 4)).map { _ in "\"\(allTags[Int(random.next() % UInt64(allTags.count))])\"" }
            let fields = [
                "\"name\":\"User \(count)\"",
                "\"email\":\"user\(count)@example.com\"",
                "\"age\":\(18 + random.next() % 70)",
                "\"active\":\(random.next() % 2 == 0)",
                "\"score\":\(Double(random.next() % 100_000) / 4)",
                "\"createdAt\":\(1_600_000_000_000 + random.next() % 100_000_000_000)",
                "\"address\":{\"street\":\"\(random.next() % 999) \(streets[Int(random.next() % 5)])\",\"city\":\"\(cities[Int(random.next() % 5)])\",\"zip\":\"\(10000 + random.next() % 89999)\"}",
                "\"tags\":[\(tags.joined(separator: ","))]",
            ].joined(separator: ",")
            if count > 0 {
                keyed += ","
                array += ","
            }
            keyed += "\"\(id)\":{\(fields)}"
            array += "{\"id\":\"\(id)\",\(fields)}"
            count += 1
        }
        keyed += "}"
        array += "]"
        self.keyed = Array(keyed.utf8)
        self.array = Array(array.utf8)
        self.count = count
    }

    /// A 20-character Firebase push id: 8 characters of time, 12 random, in Firebase's alphabet,
    /// increasing with `sequence` as Firebase's are.
    private static func pushID(_ random: inout SplitMix64, _ sequence: Int) -> String {
        let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
        var time = 1_700_000_000_000 + sequence * 37
        var head: [Character] = []
        for _ in 0..<8 {
            head.append(alphabet[time % 64])
            time /= 64
        }
        let tail = (0..<12).map { _ in alphabet[Int(random.next() % 64)] }
        return String(head.reversed() + tail)
    }
}

/// A small deterministic generator (SplitMix64), so every run measures the same payload.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
