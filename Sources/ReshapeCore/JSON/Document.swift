internal import CJansson

/// The document being reshaped: owns the root of jansson's tree for the length of one `apply`, and
/// accounts for the work and growth of the rules against the limits (see `Limits`).
///
/// Never shared between threads; each `apply` parses its own.
final class Document {
    private(set) var root: Node
    let limits: ResolvedLimits
    /// The size of the input the document was read from.
    let inputBytes: Int
    /// Steps done so far (see `Limits.maxWork`).
    private(set) var work = 0
    /// An upper bound of the size of the output as compact JSON (see `Limits.maxOutputBytes`).
    private var outputBound: Int
    /// The records of the current rule's selection, kept between rules (see `Selection`).
    var recordBuffer: [Selection.Record] = []

    /// Takes ownership of `root`, which was read from `inputBytes` bytes of JSON; `growth` and
    /// `work` are what rules already run elsewhere added to the output bound and spent (a
    /// stream's, see `RecordStream`).
    init(root: Node, inputBytes: Int, limits: ResolvedLimits, growth: Int = 0, work: Int = 0) {
        self.root = root
        self.limits = limits
        self.inputBytes = inputBytes
        self.outputBound = inputBytes.addingClamped(max(0, growth))
        self.work = max(0, work)
    }

    /// What rules added to the output bound so far.
    var growth: Int { outputBound - inputBytes }

    deinit {
        Tree.release(root)
    }

    /// Makes `node` (stolen) the document. The old root is released afterwards, so `node` may be
    /// part of it.
    func replaceRoot(with node: Node) {
        let old = root
        root = node
        Tree.release(old)
    }

    /// Counts `steps` of work; throws `limit_exceeded` past `maxWork`.
    @inline(__always)
    func charge(_ steps: Int) throws(ReshapeError) {
        work = work.addingClamped(steps)
        if work > limits.maxWork { throw .workLimit(limits.maxWork) }
    }

    /// Counts what a rule adds to the document (see `OutputGrowth`); throws `limit_exceeded` once
    /// the output could pass `maxOutputBytes`.
    @inline(__always)
    func grow(_ growth: OutputGrowth) throws(ReshapeError) {
        outputBound = outputBound.addingClamped(growth.bound)
        if outputBound > limits.maxOutputBytes { throw .outputLimit(limits.maxOutputBytes) }
    }
}
