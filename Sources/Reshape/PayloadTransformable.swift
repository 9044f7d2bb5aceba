import ReshapeCore

/// A custom change to a payload, for what no op of the rules document covers: takes the payload
/// (after the rules ran) and the ``DecodingContext``, returns what to decode, or throws.
public typealias PayloadTransform = @Sendable (_ payload: JSONValue, _ context: DecodingContext) throws -> JSONValue

/// A type that declares how its responses are reshaped before it decodes from them: rules, and
/// optionally a custom transform (seed 000's `PayloadTransformable`, without JSONSerialization).
///
/// ``ResponseDecoder`` applies them whenever it decodes this type at the top of a response (the
/// type passed to `decode`, or an ``Endpoint``'s `Root`): first ``rules(for:)``, run by the
/// engine, then ``transform`` on the result as a ``ReshapeCore/JSONValue``, then `JSONDecoder`.
///
/// ```swift
/// struct ObjectsResponse: Decodable, PayloadTransformable {
///     let objects: [Object]
///     static let rules: [Rule] = [.keyedToArray(idKey: "objectId", wrapIn: "objects")]
/// }
/// let response = try ResponseDecoder().decode(ObjectsResponse.self, from: data)
/// ```
///
/// Paths in rules start at the response's root, so rules of a type nested inside a response are
/// not applied; put them on the response type or the endpoint.
public protocol PayloadTransformable: Decodable {
    /// The rules to apply before decoding this type; none by default.
    static var rules: [Rule] { get }

    /// The rules to apply in a given context; ``rules`` by default. Implement it when the same
    /// type arrives in different shapes depending on the endpoint or API version.
    /// - Parameter context: What is being decoded.
    /// - Returns: The rules to apply, in order.
    static func rules(for context: DecodingContext) -> [Rule]

    /// A custom transform to run after the rules, or nil (the default) for none. With no
    /// transform the reshaped bytes go straight to `JSONDecoder`.
    static var transform: PayloadTransform? { get }
}

extension PayloadTransformable {
    /// No rules.
    public static var rules: [Rule] { [] }

    /// ``rules``, whatever the context.
    /// - Parameter context: What is being decoded (not looked at).
    /// - Returns: ``rules``.
    public static func rules(for context: DecodingContext) -> [Rule] { rules }

    /// No transform.
    public static var transform: PayloadTransform? { nil }
}
