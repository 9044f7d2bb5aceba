#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

/// Decodes API responses into `Decodable` types, reshaping them first with the engine.
///
/// The pipeline: the bytes → the rules (the decoder's, then an ``Endpoint``'s, then the decoded
/// type's ``PayloadTransformable/rules(for:)``), all run by the engine in one pass → the type's
/// ``PayloadTransformable/transform``, if it has one → the type, read from the engine's output
/// in place (no second parse: the output is indexed once and values are read as the type asks
/// for them), decoded as `JSONDecoder` decodes, with its strategies. With no rules and no
/// transform the bytes go straight to `JSONDecoder`, uncopied.
///
/// ```swift
/// let decoder = try ResponseDecoder(rules: [.keyedToArray(idKey: "objectId")])
/// let users = try decoder.decode([User].self, from: data)
/// ```
///
/// The `JSONDecoder` given is a template: its strategies (keys, dates, data, non-conforming
/// floats) and `userInfo` are copied when the response decoder is made, and each decoding uses
/// them, with the ``DecodingContext`` and a collector for ``LossyArray`` drops added to
/// `userInfo`. A response decoder is an immutable value: share it between threads freely.
///
/// Whenever rules or a transform run, the body is read by the engine's strict JSON reader
/// (duplicate member names, trailing commas and other non-JSON are ``ResponseError/reshape(_:)``
/// errors with line and column); without them `JSONDecoder` reads it as it always does.
public struct ResponseDecoder: Sendable {
    /// The decoder's own rules, compiled, and their source when they were typed.
    private enum Base: Sendable {
        case none
        case typed([Rule], Rules)
        case compiled(Rules)
    }

    private let base: Base
    private let template: JSONDecoder

    /// The context decodings run in, or nil for a context naming the decoded type.
    public let context: DecodingContext?
    /// The engine's input options: `.allowDuplicateKeys` lets the last of duplicate members win.
    public let options: ApplyOptions

    /// Creates a decoder without rules of its own (types and endpoints may still bring theirs).
    /// - Parameters:
    ///   - decoder: The `JSONDecoder` whose strategies and `userInfo` to decode with.
    ///   - context: The context to decode in; nil for one whose `responseType` is the decoded
    ///     type's name.
    ///   - options: Engine input options.
    public init(decoder: JSONDecoder = JSONDecoder(), context: DecodingContext? = nil, options: ApplyOptions = []) {
        self.base = .none
        self.template = Self.copy(decoder)
        self.context = context
        self.options = options
    }

    /// Creates a decoder that applies typed rules to every response.
    /// - Parameters:
    ///   - rules: The rules, applied in order before any endpoint's or type's rules.
    ///   - decoder: The `JSONDecoder` whose strategies and `userInfo` to decode with.
    ///   - context: The context to decode in.
    ///   - options: Engine input options.
    /// - Throws: ``ResponseError/reshape(_:)`` with the engine's `invalid_rules` error when a rule
    ///   breaks the rules contract.
    public init(
        rules: [Rule], decoder: JSONDecoder = JSONDecoder(), context: DecodingContext? = nil, options: ApplyOptions = []
    ) throws(ResponseError) {
        do throws(ReshapeError) {
            self.base = rules.isEmpty ? .none : .typed(rules, try Rules(rules))
        } catch {
            throw .reshape(error)
        }
        self.template = Self.copy(decoder)
        self.context = context
        self.options = options
    }

    /// Creates a decoder that applies compiled rules (for example loaded from a rules document
    /// with `Rules(json:)`) to every response.
    /// - Parameters:
    ///   - rules: The rules, applied before any endpoint's or type's rules.
    ///   - decoder: The `JSONDecoder` whose strategies and `userInfo` to decode with.
    ///   - context: The context to decode in.
    ///   - options: Engine input options.
    public init(rules: Rules, decoder: JSONDecoder = JSONDecoder(), context: DecodingContext? = nil, options: ApplyOptions = []) {
        self.base = rules.count == 0 ? .none : .compiled(rules)
        self.template = Self.copy(decoder)
        self.context = context
        self.options = options
    }

    /// Decodes a response as `type`.
    /// - Parameters:
    ///   - type: The type to decode; its rules and transform apply when it is ``PayloadTransformable``.
    ///   - data: The response body.
    /// - Returns: The decoded value.
    /// - Throws: ``ResponseError``: ``ResponseError/reshape(_:)``, ``ResponseError/transform(type:underlying:)``
    ///   or ``ResponseError/decoding(path:message:underlying:)``.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ResponseError) -> T {
        try run(type, from: data, endpointRules: [], context: nil, diagnose: false).value
    }

    /// Decodes a response given as bytes as `type`. See ``decode(_:from:)-(_,Data)``.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - bytes: The response body.
    /// - Returns: The decoded value.
    /// - Throws: ``ResponseError``.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(ResponseError) -> T {
        try decode(type, from: Data(bytes))
    }

    /// Decodes a response as `type` and returns, with the value, every element a ``LossyArray``
    /// dropped on the way, with normalized paths into the reshaped document.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The response body.
    /// - Returns: The value, and the drops in the order they happened.
    /// - Throws: ``ResponseError``.
    public func decodeWithDiagnostics<T: Decodable>(
        _ type: T.Type, from data: Data
    ) throws(ResponseError) -> (value: T, diagnostics: [DecodingDiagnostic]) {
        try run(type, from: data, endpointRules: [], context: nil, diagnose: true)
    }

    /// Decodes a response of an endpoint: checks the HTTP status and the body, applies the
    /// endpoint's rules, decodes its `Root` and returns ``Endpoint/content(from:)``.
    /// - Parameters:
    ///   - endpoint: The endpoint the response came from.
    ///   - data: The body, or nil when there was none.
    ///   - statusCode: The HTTP status, or nil when there is none to check.
    /// - Returns: The endpoint's content.
    /// - Throws: ``ResponseError``: ``ResponseError/httpStatus(_:body:)`` for a status outside
    ///   `200..<300`, ``ResponseError/noData``, ``ResponseError/emptyBody``, then the errors of
    ///   ``decode(_:from:)-(_,Data)`` and ``ResponseError/content(type:underlying:)``.
    public func decode<E: Endpoint>(_ endpoint: E, from data: Data?, statusCode: Int?) throws(ResponseError) -> E.Content {
        if let statusCode, !(200..<300).contains(statusCode) {
            throw .httpStatus(statusCode, body: data ?? Data())
        }
        guard let data else { throw .noData }
        guard data.contains(where: { !Self.isWhiteSpace($0) }) else { throw .emptyBody }
        let root = try run(E.Root.self, from: data, endpointRules: endpoint.rules, context: endpoint.context, diagnose: false).value
        do {
            return try endpoint.content(from: root)
        } catch {
            throw .content(type: String(describing: E.self), underlying: error)
        }
    }

    /// A `JSONDecoder` configured as this decoder decodes: the template's strategies and
    /// `userInfo`, and `context` as its ``DecodingContext``.
    /// - Parameter context: The context to carry, or nil for this decoder's.
    /// - Returns: A new `JSONDecoder`.
    public func makeJSONDecoder(context: DecodingContext? = nil) -> JSONDecoder {
        let decoder = Self.copy(template)
        if let context = context ?? self.context { decoder.userInfo[.decodingContext] = context }
        return decoder
    }

    // MARK: - The pipeline

    private func run<T: Decodable>(
        _ type: T.Type, from data: Data, endpointRules: [Rule], context endpointContext: DecodingContext?, diagnose: Bool
    ) throws(ResponseError) -> (value: T, diagnostics: [DecodingDiagnostic]) {
        let context = endpointContext ?? self.context ?? DecodingContext(responseType: String(describing: T.self))
        let transformable = T.self as? any PayloadTransformable.Type
        var shaped: ShapedBytes?
        let stages: [(rules: Rules, offset: Int)] = try stages(adding: endpointRules + (transformable?.rules(for: context) ?? []))
        for (position, stage) in stages.enumerated() {
            do throws(ResponseError) {
                shaped = try reshape(shaped, data, with: stage.rules, numberedFrom: stage.offset)
            } catch {
                // A later stage traced its failure to its own input: on to the body.
                guard position > 0, case .reshape(var failure) = error, let later = failure.source else { throw error }
                failure.source = Self.offset(later, by: stage.offset)
                if later.origin != .added, let earlier = sources([later.path], through: Array(stages[..<position]), from: data)[0] {
                    failure.source = Self.merged(earlier, then: Self.offset(later, by: stage.offset))
                }
                throw .reshape(failure)
            }
        }
        // Values are traced back to the body through the rules, not through a transform's code.
        var traced = stages
        if let transformable, let transform = transformable.transform {
            shaped = try apply(transform, of: T.self, to: shaped, data, in: context)
            traced = []
        }

        let sink = DiagnosticSink()
        // The engine's output is read in place through its index (no second parse by
        // `JSONDecoder`), and errors and diagnostics are located with the same index. Text the
        // index refuses (nesting past `JSONDecoder`'s limit) goes to `JSONDecoder`, as the body
        // does when no rules ran.
        let index = shaped.flatMap { try? JSONIndex($0) }
        let value: T
        do {
            if let index {
                value = try decodeIndexed(T.self, from: index, context: context, sink: sink)
            } else {
                let decoder = makeJSONDecoder(context: context)
                decoder.userInfo[.decodingDiagnostics] = sink
                value = try decoder.decode(T.self, from: shaped?.data ?? data)
            }
        } catch let error as DecodingError {
            // `JSONDecoder`'s errors may say neither where nor what (a number out of range is
            // "not valid JSON" at `$`): the index decoder, on the same document, says both.
            if index == nil, let (again, againIndex) = decodedAgain(T.self, from: shaped?.data ?? data, context: context) {
                let (path, message) = resolver(againIndex, shaped?.data ?? data).report(again)
                throw .decoding(path: path, message: message, underlying: again)
            }
            let (path, message) = resolver(index, shaped?.data ?? data).report(error)
            throw .decoding(path: path, message: message + (sources([path], through: traced, from: data)[0]?.suffix(after: path) ?? ""),
                            underlying: error)
        } catch {
            throw .decoding(path: "", message: "\(error)", underlying: error)
        }
        guard diagnose, !sink.dropped.isEmpty else { return (value, []) }
        let resolver = resolver(index, shaped?.data ?? data)
        var diagnostics = sink.dropped.map { $0.diagnostic(resolver) }
        for (position, source) in sources(diagnostics.map(\.errorPath), through: traced, from: data).enumerated() {
            diagnostics[position].source = source
        }
        return (value, diagnostics)
    }

    /// After `JSONDecoder` failed on `data`: the error of decoding the same document through its
    /// index, or nil when the text is no JSON value the index takes, or that decoding succeeds.
    /// Runs the types' `init(from:)` a second time, on failures only.
    private func decodedAgain<T: Decodable>(_ type: T.Type, from data: Data, context: DecodingContext) -> (DecodingError, JSONIndex)? {
        guard let value = data.withUnsafeBytes({ bytes in try? JSONValue(json: bytes, allowDuplicateKeys: false) }),
              let text = try? value.json(), let index = try? JSONIndex(ShapedBytes(copying: text))
        else { return nil }
        do {
            _ = try decodeIndexed(T.self, from: index, context: context, sink: DiagnosticSink())
            return nil
        } catch let error as DecodingError {
            return (error, index)
        } catch {
            return nil
        }
    }

    /// Where the values at `paths` of the reshaped document were in `body`, traced back through
    /// each stage of rules (docs/trace.md): nil for each when no rules ran, or on any failure.
    /// Run only for an error or diagnostics.
    private func sources(_ paths: [String], through stages: [(rules: Rules, offset: Int)], from body: Data) -> [ValueSource?] {
        let none = [ValueSource?](repeating: nil, count: paths.count)
        guard !stages.isEmpty, !paths.isEmpty else { return none }
        // Each stage's input: the body, then each stage's output before the last.
        var inputs: [[UInt8]] = [Array(body)]
        for stage in stages.dropLast() {
            guard let last = inputs.last, let output = try? stage.rules.apply(to: last, options: options) else { return none }
            inputs.append(output)
        }
        var found: [ValueSource?] = none
        var wanted = paths.map { Optional($0) }
        for (position, stage) in stages.enumerated().reversed() {
            let asked = wanted.indices.filter { wanted[$0] != nil }
            guard !asked.isEmpty,
                let traced = try? stage.rules.sources(of: asked.compactMap { wanted[$0] }, in: inputs[position], options: options)
            else { break }
            for (index, source) in zip(asked, traced) {
                let source = found[index].map { Self.merged(Self.offset(source, by: stage.offset), then: $0) }
                    ?? Self.offset(source, by: stage.offset)
                found[index] = source
                wanted[index] = source.origin == .added || source.path.isEmpty ? nil : source.path
            }
        }
        return found
    }

    /// `source`, from a stage whose rules are numbered from `offset`, in the numbers of all rules.
    private static func offset(_ source: ValueSource, by offset: Int) -> ValueSource {
        var source = source
        source.rule += source.rule > 0 ? offset : 0
        source.renames = source.renames.map { ValueSource.Rename(rule: $0.rule + offset, op: $0.op, from: $0.from, to: $0.to) }
        return source
    }

    /// The source in the body, `earlier`, of the value a later stage traced to its input as `later`:
    /// the place is the earlier stage's, the later stage's word on what made the value stands.
    private static func merged(_ earlier: ValueSource, then later: ValueSource) -> ValueSource {
        var source = earlier
        source.renames += later.renames
        if later.origin != .input { (source.origin, source.rule, source.op) = (later.origin, later.rule, later.op) }
        return source
    }

    /// Decodes the engine's output with an ``IndexDecoder``, configured as ``makeJSONDecoder(context:)``
    /// would configure a `JSONDecoder`.
    private func decodeIndexed<T: Decodable>(
        _ type: T.Type, from index: JSONIndex, context: DecodingContext, sink: DiagnosticSink
    ) throws -> T {
        var userInfo: [CodingUserInfoKey: Any] = template.userInfo
        userInfo[.decodingContext] = context
        userInfo[.decodingDiagnostics] = sink
        return try IndexDecoder.decode(type, from: index, options: DecodingOptions(template), userInfo: userInfo)
    }

    /// The compiled rules to run, in order, each with the number of rules before it: one pass
    /// whenever the rules are all typed.
    private func stages(adding extra: [Rule]) throws(ResponseError) -> [(Rules, Int)] {
        switch base {
        case .none:
            return extra.isEmpty ? [] : [(try compile(extra, numberedFrom: 0), 0)]
        case .typed(let list, let compiled):
            return extra.isEmpty ? [(compiled, 0)] : [(try compile(list + extra, numberedFrom: 0), 0)]
        case .compiled(let compiled):
            return extra.isEmpty
                ? [(compiled, 0)] : [(compiled, 0), (try compile(extra, numberedFrom: compiled.count), compiled.count)]
        }
    }

    private func compile(_ rules: [Rule], numberedFrom offset: Int) throws(ResponseError) -> Rules {
        do throws(ReshapeError) {
            return try Rules(rules)
        } catch {
            throw .reshape(Self.renumbered(error, from: offset))
        }
    }

    /// Runs the engine on the output of the previous stage (or the body), taking over its output
    /// buffer without a copy.
    private func reshape(
        _ previous: ShapedBytes?, _ body: Data, with rules: Rules, numberedFrom offset: Int
    ) throws(ResponseError) -> ShapedBytes {
        let options = self.options
        let run = { (bytes: UnsafeRawBufferPointer) in
            Result { () throws(ReshapeError) in try rules.applyTakingBuffer(bytes, options: options) }
        }
        let result = previous.map { run($0.buffer) } ?? body.withUnsafeBytes(run)
        switch result {
        case .success(let output):
            return ShapedBytes(taking: output.pointer, count: output.count)
        case .failure(let error):
            throw .reshape(Self.renumbered(error, from: offset))
        }
    }

    private func apply<T>(
        _ transform: PayloadTransform, of type: T.Type, to previous: ShapedBytes?, _ body: Data, in context: DecodingContext
    ) throws(ResponseError) -> ShapedBytes {
        let allowDuplicateKeys = options.contains(.allowDuplicateKeys)
        let parse = { (bytes: UnsafeRawBufferPointer) in
            Result { () throws(ReshapeError) in try JSONValue(json: bytes, allowDuplicateKeys: allowDuplicateKeys) }
        }
        let payload: JSONValue
        switch previous.map({ parse($0.buffer) }) ?? body.withUnsafeBytes(parse) {
        case .success(let value): payload = value
        case .failure(let error): throw .reshape(error)
        }
        do {
            return ShapedBytes(copying: try transform(payload, context).json())
        } catch {
            throw .transform(type: String(describing: T.self), underlying: error)
        }
    }

    /// A resolver over the document the decoder read (only made on errors and for diagnostics):
    /// its index when there is one, or else `data` read once.
    private func resolver(_ index: JSONIndex?, _ data: Data) -> CodingPathResolver {
        let strategy: JSONDecoder.KeyDecodingStrategy?
        if case .useDefaultKeys = template.keyDecodingStrategy { strategy = nil } else { strategy = template.keyDecodingStrategy }
        if let index { return CodingPathResolver(index: index, keyStrategy: strategy) }
        let document = data.withUnsafeBytes { bytes in try? JSONValue(json: bytes, allowDuplicateKeys: true) }
        return CodingPathResolver(document: document, keyStrategy: strategy)
    }

    private static func renumbered(_ error: ReshapeError, from offset: Int) -> ReshapeError {
        var error = error
        if error.rule > 0 { error.rule += offset }
        return error
    }

    static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// A new `JSONDecoder` with the configuration of `source`.
    private static func copy(_ source: JSONDecoder) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = source.dateDecodingStrategy
        decoder.dataDecodingStrategy = source.dataDecodingStrategy
        decoder.nonConformingFloatDecodingStrategy = source.nonConformingFloatDecodingStrategy
        decoder.keyDecodingStrategy = source.keyDecodingStrategy
        decoder.userInfo = source.userInfo
        if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
            decoder.allowsJSON5 = source.allowsJSON5
            decoder.assumesTopLevelDictionary = source.assumesTopLevelDictionary
        }
        return decoder
    }
}
