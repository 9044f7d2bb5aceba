/// A typed-decoding message worded as the engine words its own, carrying no value from the
/// document: the `underlyingError` of the `DecodingError`s this module throws itself, so that
/// ``CodingPathResolver/report(_:)`` uses it as it stands. Every other `DecodingError` is
/// worded again from its case, its type and the kind of value found, never from its text.
struct DecodingMessage: Error, CustomStringConvertible {
    let text: String

    var description: String { text }

    /// `dataCorrupted` at `codingPath`, whose description is `text` too.
    static func corrupted(_ text: String, at codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: text, underlyingError: DecodingMessage(text: text)))
    }
}
