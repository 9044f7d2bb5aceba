internal import CJansson

/// The document being reshaped: owns the root of jansson's tree for the length of one `apply`.
///
/// Never shared between threads; each `apply` parses its own.
final class Document {
    private(set) var root: Node

    /// Takes ownership of `root`.
    init(root: Node) {
        self.root = root
    }

    deinit {
        json_decref(root)
    }

    /// Makes `node` (stolen) the document. The old root is released afterwards, so `node` may be
    /// part of it.
    func replaceRoot(with node: Node) {
        let old = root
        root = node
        json_decref(old)
    }
}
