/// A type that names the value a ``DefaultCodable`` property takes when its member is missing,
/// `null` or fails to decode.
///
/// Write one for a default of your own:
///
/// ```swift
/// enum GuestRole: DefaultValueProvider {
///     static let defaultValue = Role.guest
/// }
///
/// struct User: Decodable {
///     @DefaultCodable<GuestRole> var role: Role
/// }
/// ```
public protocol DefaultValueProvider {
    /// The type of the property.
    associatedtype Value: Decodable
    /// The value to use instead of one that did not decode.
    static var defaultValue: Value { get }
}

/// The providers behind ``DefaultFalse``, ``DefaultTrue``, ``DefaultZero``, ``DefaultEmptyArray``
/// and ``DefaultEmptyDictionary``.
public enum DefaultValueProviders {
    /// `false`.
    public enum False: DefaultValueProvider {
        /// `false`.
        public static var defaultValue: Bool { false }
    }

    /// `true`.
    public enum True: DefaultValueProvider {
        /// `true`.
        public static var defaultValue: Bool { true }
    }

    /// Zero of any number type (`Int`, `Double`, `Decimal`, ...).
    public enum Zero<Value: AdditiveArithmetic & Decodable>: DefaultValueProvider {
        /// `.zero`.
        public static var defaultValue: Value { .zero }
    }

    /// An empty array.
    public enum EmptyArray<Element: Decodable>: DefaultValueProvider {
        /// `[]`.
        public static var defaultValue: [Element] { [] }
    }

    /// An empty dictionary.
    public enum EmptyDictionary<Key: Hashable & Decodable, Value: Decodable>: DefaultValueProvider {
        /// `[:]`.
        public static var defaultValue: [Key: Value] { [:] }
    }
}

/// A `Bool` that is `false` when its member is missing, `null` or not a boolean; each time, a
/// ``DecodingDiagnostic`` says so. See ``DefaultCodable``.
public typealias DefaultFalse = DefaultCodable<DefaultValueProviders.False>

/// A `Bool` that is `true` when its member is missing, `null` or not a boolean; each time, a
/// ``DecodingDiagnostic`` says so. See ``DefaultCodable``.
public typealias DefaultTrue = DefaultCodable<DefaultValueProviders.True>

/// A number that is zero when its member is missing, `null` or not such a number
/// (`@DefaultZero var count: Int`); each time, a ``DecodingDiagnostic`` says so. See ``DefaultCodable``.
public typealias DefaultZero<Value: AdditiveArithmetic & Decodable> = DefaultCodable<DefaultValueProviders.Zero<Value>>

/// An array that is empty when its member is missing, `null` or fails to decode (as a whole: to
/// drop only the elements that fail, use ``LossyArray``); each time, a ``DecodingDiagnostic`` says
/// so. See ``DefaultCodable``.
public typealias DefaultEmptyArray<Element: Decodable> = DefaultCodable<DefaultValueProviders.EmptyArray<Element>>

/// A dictionary that is empty when its member is missing, `null` or fails to decode (as a whole:
/// to drop only the entries that fail, use ``LossyDictionary``); each time, a
/// ``DecodingDiagnostic`` says so. See ``DefaultCodable``.
public typealias DefaultEmptyDictionary<Key: Hashable & Decodable, Value: Decodable> =
    DefaultCodable<DefaultValueProviders.EmptyDictionary<Key, Value>>
