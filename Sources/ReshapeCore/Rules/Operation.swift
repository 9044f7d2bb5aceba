/// One op of the rules document: how it reads its params, and what it does to a document.
///
/// Each op lives in its own file under `Ops/`, named for the op.
protocol Operation: Sendable {
    /// The op's name in the rules document.
    static var name: String { get }

    /// Reads the op's params, rejecting wrong types and values.
    init(_ params: inout RuleParams) throws(ReshapeError)

    /// Reshapes the document in place. Errors carry the normalized path of the failing value;
    /// the caller adds the rule's index and op.
    func apply(to document: Document) throws(ReshapeError)

    /// How deep the rule looks into the document, for the raw-value fast path.
    var rawAccess: RawAccess { get }
}

/// Every op of the rules document.
enum Operations {
    static func type(named name: String) -> (any Operation.Type)? {
        switch name {
        case Unwrap.name: Unwrap.self
        case Wrap.name: Wrap.self
        case KeyedToArray.name: KeyedToArray.self
        case ArrayToKeyed.name: ArrayToKeyed.self
        case EmptyObjectToNull.name: EmptyObjectToNull.self
        case BlankStringToNull.name: BlankStringToNull.self
        case ConvertKeys.name: ConvertKeys.self
        case RenameKeys.name: RenameKeys.self
        case Remove.name: Remove.self
        case Default.name: Default.self
        case Coerce.name: Coerce.self
        default: nil
        }
    }

    static var names: [String] {
        [
            Unwrap.name, Wrap.name, KeyedToArray.name, ArrayToKeyed.name, EmptyObjectToNull.name,
            BlankStringToNull.name, ConvertKeys.name, RenameKeys.name, Remove.name, Default.name, Coerce.name,
        ]
    }
}
