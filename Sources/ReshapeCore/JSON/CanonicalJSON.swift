/// A JSON value held as its canonical text: what a rule inserts (`default`'s value).
///
/// Compiled rules keep it as bytes, not as a tree or a `JSONValue`, so that they can be shared by
/// threads and freed without walking anything; each insertion parses fresh nodes from it.
struct CanonicalJSON: Sendable {
    /// Compact canonical JSON.
    let text: [UInt8]
    /// How many values it holds, itself included.
    let values: Int

    /// What writing it where another value was adds to the output.
    var growth: OutputGrowth { OutputGrowth(values: values, bytes: text.count) }

    /// New nodes for the value (owned by the caller).
    func makeNode() throws(ReshapeError) -> Node {
        try text.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in try JSONParser.parse(bytes, maxDepth: .max) }
    }
}
