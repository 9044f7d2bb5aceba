#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

/// Encodes `Encodable` values into request bodies, reshaping them on the way out with the engine:
/// the write-back side of ``ResponseDecoder``.
///
/// The pipeline: the value → `JSONEncoder` (with the template's strategies) → the rules, run by
/// the engine in one pass → the body. Rules written for the way in have an inverse for the way out:
/// `.arrayToKeyed` turns the array a `.keyedToArray` made back into Firebase's `{"<id>": {...}}`
/// for a PUT or PATCH, `.convertKeys(to: .snakeCase)` undoes `.convertKeys(to: .camelCase)`.
///
/// ```swift
/// let encoder = try ResponseEncoder(rules: [.arrayToKeyed(idKey: "id")])
/// request.httpBody = try encoder.encode(users)     // {"-Nx1": {"name": "Ada"}, ...}
/// ```
///
/// The `JSONEncoder` given is a template, copied when the response encoder is made: its key, date,
/// data and non-conforming float strategies and its `userInfo` apply, as do two of its output
/// formats: `.sortedKeys` (members are sorted before the rules run, so members a rule adds come
/// where the rule puts them) and `.prettyPrinted` (the engine writes the result indented with two
/// spaces). The engine writes `/` unescaped, with or without `.withoutEscapingSlashes`. With no
/// rules the body is `JSONEncoder`'s, as it wrote it. A response encoder is an immutable value:
/// share it between threads freely.
public struct ResponseEncoder: Sendable {
    private let rules: Rules?
    private let template: JSONEncoder

    /// Creates an encoder that applies typed rules to every body.
    /// - Parameters:
    ///   - rules: The rules, applied in order to what `JSONEncoder` writes.
    ///   - encoder: The `JSONEncoder` whose strategies, output formats and `userInfo` to use.
    /// - Throws: ``ResponseError/reshape(_:)`` with the engine's `invalid_rules` error when a rule
    ///   breaks the rules contract.
    public init(rules: [Rule], encoder: JSONEncoder = JSONEncoder()) throws(ResponseError) {
        do throws(ReshapeError) {
            self.rules = rules.isEmpty ? nil : try Rules(rules)
        } catch {
            throw .reshape(error)
        }
        self.template = Self.copy(encoder)
    }

    /// Creates an encoder that applies compiled rules (for example loaded from a rules document
    /// with `Rules(json:)`) to every body.
    /// - Parameters:
    ///   - rules: The rules.
    ///   - encoder: The `JSONEncoder` whose strategies, output formats and `userInfo` to use.
    public init(rules: Rules, encoder: JSONEncoder = JSONEncoder()) {
        self.rules = rules.count == 0 ? nil : rules
        self.template = Self.copy(encoder)
    }

    /// Encodes `value` and reshapes the result.
    /// - Parameter value: The value to encode.
    /// - Returns: The body: strict JSON, UTF-8.
    /// - Throws: ``ResponseError/encoding(path:message:underlying:)`` when `JSONEncoder` cannot encode
    ///   the value (a non-finite number without a strategy, a throwing `encode(to:)`), with the
    ///   normalized path of the value; ``ResponseError/reshape(_:)`` when a rule fails (code, rule,
    ///   op, path into what `JSONEncoder` wrote).
    public func encode<T: Encodable>(_ value: T) throws(ResponseError) -> Data {
        let encoder = Self.copy(template)
        var formatting = encoder.outputFormatting
        let pretty = formatting.contains(.prettyPrinted)
        if rules != nil { formatting.remove(.prettyPrinted) }
        encoder.outputFormatting = formatting
        let encoded: Data
        do {
            encoded = try encoder.encode(value)
        } catch let error as EncodingError {
            guard case .invalidValue(_, let context) = error else {
                throw .encoding(path: "$", message: "\(error)", underlying: error)
            }
            var message = context.debugDescription
            if let underlying = context.underlyingError { message += " (\(underlying))" }
            throw .encoding(path: context.codingPath.normalizedPath, message: message, underlying: error)
        } catch {
            throw .encoding(path: "$", message: "\(error)", underlying: error)
        }
        guard let rules else { return encoded }
        let options: ApplyOptions = pretty ? [.pretty] : []
        let result = encoded.withUnsafeBytes { bytes in
            Result { () throws(ReshapeError) in try rules.applyTakingBuffer(bytes, options: options) }
        }
        switch result {
        case .success(let output):
            return ShapedBytes(taking: output.pointer, count: output.count).data
        case .failure(let error):
            throw .reshape(error)
        }
    }

    /// A new `JSONEncoder` with the configuration of `source`.
    private static func copy(_ source: JSONEncoder) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = source.outputFormatting
        encoder.dateEncodingStrategy = source.dateEncodingStrategy
        encoder.dataEncodingStrategy = source.dataEncodingStrategy
        encoder.nonConformingFloatEncodingStrategy = source.nonConformingFloatEncodingStrategy
        encoder.keyEncodingStrategy = source.keyEncodingStrategy
        encoder.userInfo = source.userInfo
        return encoder
    }
}
