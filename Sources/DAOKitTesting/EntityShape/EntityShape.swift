/// The stored shape of an entity: its fields' names, kinds, optionality and nesting, and the cases
/// of its raw-value enums — what a record of it holds, without any record.
///
/// ``EntityShapeCheck`` records the shape of each version of an entity in a snapshot file and
/// checks the current type against every recorded one. A shape is derived from the `Decodable`
/// type alone by ``init(of:)``, which runs the type's `init(from:)` against a decoder that answers
/// every request with a placeholder and writes down what was asked.
///
/// Its text form (``description``, the body of a snapshot file) has one line per field path:
///
/// ```
/// id: string
/// title: string
/// due: date?
/// tags: [string]
/// status: enum(open,done)
/// owner: {}
/// owner.name: string
/// ```
public struct EntityShape: Equatable, Sendable, CustomStringConvertible {
    /// The entity's top-level fields, in the order its `init(from:)` reads them.
    public var fields: [Field]

    /// A shape made of these fields.
    public init(fields: [Field]) {
        self.fields = fields
    }

    /// The shape `type` stores, derived from its `init(from:)` without an instance.
    ///
    /// What each decoding request means: `decode` is a required field, `decodeIfPresent` (or a
    /// `contains` or `decodeNil` asked for the key) an optional one, a nested container or a
    /// `Decodable` type a nested keyed value; arrays and sets are read as one element, dictionaries
    /// (keyed by `String` or an integer) as one entry. `String`, integers, `Bool`, floating-point
    /// numbers, `Date`, `Data`, `URL`, `Decimal` and `UUID` are leaves. A `CaseIterable` enum with
    /// `String` or integer raw values is recorded with every case's raw value. A type met again
    /// inside itself is recorded as `recursive(Name)`: allowed behind an optional or a collection.
    ///
    /// - Throws: ``ShapeRecordingError`` naming the field when the shape cannot be derived: the
    ///   type is not a keyed container (a record is a JSON object); a field's `init(from:)`
    ///   rejects the placeholder it is given (a type that validates values, such as a raw-value
    ///   enum that is not `CaseIterable`, or an enum with associated values); it asks for a super
    ///   decoder; it recurses into itself through a required field; a dictionary is keyed by
    ///   something other than `String` or an integer. Never crashes on any of them.
    public init<T: Decodable>(of type: T.Type) throws {
        let recorder = ShapeRecorder()
        let value: Value
        do {
            (value, _) = try recorder.record(T.self, path: [])
        } catch {
            // The first request the recorder could not answer is the cause, also when the type
            // swallowed it and failed later for want of the value.
            throw recorder.firstError ?? error
        }
        if let error = recorder.firstError { throw error }
        guard case .keyed(let fields) = value.kind, !value.isOptional else {
            throw ShapeRecordingError(
                field: "", typeName: String(describing: T.self),
                reason: "it is not stored as a keyed container (\(value)): an entity is stored as an object of fields")
        }
        self.fields = fields
    }

    /// The shape's text: one line per field path (`owner.name: string`), children after their
    /// parent; the body of a snapshot file.
    public var description: String {
        ShapeText.lines(of: fields).joined(separator: "\n")
    }
}

extension EntityShape {
    /// One field of a keyed value: its key and what it holds.
    public struct Field: Equatable, Sendable {
        /// The key the field is stored under (its `CodingKey`'s `stringValue`).
        public var name: String
        /// What the field holds.
        public var value: Value

        /// A field named `name` holding `value`.
        public init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// What a field, an array element or a dictionary value holds: a kind, and whether it may be
    /// missing (`null` or absent).
    public struct Value: Equatable, Sendable, CustomStringConvertible {
        /// The kind of value.
        public var kind: Kind
        /// Whether the value may be missing: an `Optional`, or a key read with `decodeIfPresent`.
        public var isOptional: Bool

        /// A value of `kind`, optional or not.
        public init(_ kind: Kind, isOptional: Bool = false) {
            self.kind = kind
            self.isOptional = isOptional
        }

        /// Its text in a snapshot file: `date?`, `[string]`, `[string: integer]`, `{}`.
        public var description: String {
            ShapeText.text(of: self)
        }
    }

    /// The kind of a stored value.
    public indirect enum Kind: Equatable, Sendable {
        /// Text (`string`).
        case string
        /// Any integer type (`integer`); widths are not told apart.
        case integer
        /// `Double`, `Float` and other binary floating-point numbers (`floating`).
        case floating
        /// `Bool` (`bool`).
        case bool
        /// `Date` (`date`).
        case date
        /// `Data` (`data`).
        case data
        /// `URL` (`url`).
        case url
        /// `Decimal` (`decimal`).
        case decimal
        /// `UUID` (`uuid`).
        case uuid
        /// A nested keyed value with these fields (`{}`; its fields follow on lines of their own).
        case keyed([Field])
        /// An array or set of elements (`[element]`).
        case array(Value)
        /// A dictionary (`[string: value]`, or `[integer: value]` when keyed by an integer type).
        case dictionary(integerKeys: Bool, Value)
        /// A `CaseIterable` enum stored by its raw values, listed in `allCases` order
        /// (`enum(open,done)`; `integer-enum(1,2)` for integer raw values).
        case enumeration(rawValues: [String], integerRawValues: Bool)
        /// The named type again, inside itself (`recursive(Node)`).
        case recursive(String)
    }
}
