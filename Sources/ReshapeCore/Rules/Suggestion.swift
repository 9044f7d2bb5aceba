/// "Did you mean" for typos in op names, params and choices.
enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be what was meant: the same
    /// ignoring case, or within a small edit distance.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        if let sameIgnoringCase = candidates.first(where: { $0.lowercased() == lowered }) {
            return sameIgnoringCase
        }
        let limit = max(1, min(3, word.count / 3))
        var best: (candidate: String, distance: Int)? = nil
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// `; did you mean "x"?` or the empty string.
    static func hint(for word: String, among candidates: [String]) -> String {
        guard let match = closest(to: word, among: candidates) else { return "" }
        return "; did you mean \(quoted(match))?"
    }

    /// Levenshtein distance over Unicode scalars.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
