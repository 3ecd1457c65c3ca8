import Foundation

/// One step of a field path: a key, or "an element" of an array or a dictionary (`[]`).
enum ShapePathComponent: Equatable, Sendable {
    case key(String)
    case element
}

/// Derives an ``EntityShape`` from a `Decodable` type: runs the type's `init(from:)` against a
/// ``RecordingDecoder`` that answers every request with a placeholder and writes down what was
/// asked. Types whose decoding the recorder knows (leaves, optionals, collections, raw-value
/// enums) are answered without running their `init(from:)`, because theirs would ask for things
/// (a `Date`'s number, an array's every element) that say nothing about the stored shape.
final class ShapeRecorder {
    /// The types whose `init(from:)` is running, innermost last: meeting one again is recursion.
    private var inProgress: [ObjectIdentifier] = []

    /// The shape of `T` at `path`, and a placeholder value of it to hand back to the decoding code.
    func record<T: Decodable>(_ type: T.Type, path: [ShapePathComponent]) throws -> (EntityShape.Value, T) {
        if let (kind, placeholder) = Self.leaf(T.self) {
            return (EntityShape.Value(kind), placeholder)
        }
        if let wrapper = T.self as? any ShapeRecordableWrapper.Type {
            let (value, placeholder) = try wrapper.recordShape(with: self, path: path)
            // The wrapper is T itself (the protocol is only adopted by the wrapper types), so the
            // cast cannot fail; it is checked anyway, so that a mistake is an error, not a crash.
            guard let typed = placeholder as? T else {
                throw unsupported(T.self, path, "its placeholder has another type")
            }
            return (value, typed)
        }
        if let enumeration = try Self.enumeration(T.self) {
            return enumeration
        }
        return try recordByDecoding(T.self, path: path)
    }

    /// Whether `type`'s `init(from:)` is running further out, so that recording it again would never end.
    func isInProgress(_ type: Any.Type) -> Bool {
        inProgress.contains(ObjectIdentifier(type))
    }

    /// The first error made by ``unsupported(_:_:_:)``, so that one the decoding code swallows
    /// (`try?` with a fallback) still fails the recording instead of leaving a field out.
    private(set) var firstError: ShapeRecordingError?

    /// The error for a request the recorder cannot answer.
    func unsupported(_ type: Any.Type, _ path: [ShapePathComponent], _ reason: String) -> ShapeRecordingError {
        let error = ShapeRecordingError(field: ShapeText.path(path), typeName: String(describing: type), reason: reason)
        if firstError == nil { firstError = error }
        return error
    }

    /// Runs `T.init(from:)` against a recording decoder.
    private func recordByDecoding<T: Decodable>(_ type: T.Type, path: [ShapePathComponent]) throws -> (
        EntityShape.Value, T
    ) {
        guard !isInProgress(T.self) else {
            throw unsupported(
                T.self, path,
                "it holds itself through a required field; only an optional or a collection can hold its own type")
        }
        inProgress.append(ObjectIdentifier(T.self))
        defer { inProgress.removeLast() }
        let decoder = RecordingDecoder(recorder: self, path: path)
        let placeholder: T
        do {
            placeholder = try T(from: decoder)
        } catch let error as ShapeRecordingError {
            throw error
        } catch {
            // A recording error the type swallowed is what made it fail: report that one.
            if let firstError { throw firstError }
            throw unsupported(
                T.self, path,
                "its init(from:) rejected the recorder's placeholder value (\(error)). A type whose decoding "
                    + "validates values cannot be recorded: make a raw-value enum CaseIterable, or store such a "
                    + "field as its raw kind and validate it after reading")
        }
        return (try decoder.recordedValue(type: T.self), placeholder)
    }

    /// The kind and a placeholder of the leaf types.
    private static func leaf<T>(_ type: T.Type) -> (EntityShape.Kind, T)? {
        func cast(_ kind: EntityShape.Kind, _ value: Any) -> (EntityShape.Kind, T)? {
            (value as? T).map { (kind, $0) }
        }
        if T.self == String.self { return cast(.string, "a") }
        if T.self == Bool.self { return cast(.bool, true) }
        if T.self == Date.self { return cast(.date, Date(timeIntervalSinceReferenceDate: 1)) }
        if T.self == Data.self { return cast(.data, Data([0])) }
        if T.self == URL.self { return cast(.url, URL(string: "https://example.com/a") as Any) }
        if T.self == Decimal.self { return cast(.decimal, Decimal(1)) }
        if T.self == UUID.self { return cast(.uuid, UUID()) }
        if let integer = T.self as? any FixedWidthInteger.Type { return cast(.integer, one(integer)) }
        if let floating = T.self as? any BinaryFloatingPoint.Type { return cast(.floating, oneAndAHalf(floating)) }
        return nil
    }

    private static func one<I: FixedWidthInteger>(_ type: I.Type) -> I { 1 }
    private static func oneAndAHalf<F: BinaryFloatingPoint>(_ type: F.Type) -> F { 1.5 }

    /// A `CaseIterable` enum with `String` or integer raw values: its raw values, and its first
    /// case as the placeholder. `nil` for any other type.
    private static func enumeration<T>(_ type: T.Type) throws -> (EntityShape.Value, T)? {
        guard let caseIterable = T.self as? any (CaseIterable & RawRepresentable).Type else { return nil }
        guard let (rawValues, integers, first) = cases(of: caseIterable), let placeholder = first as? T else {
            return nil
        }
        return (EntityShape.Value(.enumeration(rawValues: rawValues, integerRawValues: integers)), placeholder)
    }

    private static func cases<E: CaseIterable & RawRepresentable>(of type: E.Type) -> ([String], Bool, Any)? {
        let all = Array(E.allCases)
        guard let first = all.first else { return nil }
        if E.RawValue.self == String.self {
            return (all.map { "\($0.rawValue)" }, false, first)
        }
        if E.RawValue.self is any FixedWidthInteger.Type {
            return (all.map { "\($0.rawValue)" }, true, first)
        }
        return nil
    }
}

/// The types the recorder answers without their `init(from:)`: `Optional`, arrays, sets and
/// dictionaries. Adopted by those types only.
protocol ShapeRecordableWrapper {
    /// The wrapper's shape at `path`, and a placeholder value of the adopting type.
    static func recordShape(with recorder: ShapeRecorder, path: [ShapePathComponent]) throws -> (EntityShape.Value, Any)
}

extension Optional: ShapeRecordableWrapper where Wrapped: Decodable {
    static func recordShape(with recorder: ShapeRecorder, path: [ShapePathComponent]) throws -> (EntityShape.Value, Any)
    {
        if recorder.isInProgress(Wrapped.self) {
            return (
                EntityShape.Value(.recursive(String(describing: Wrapped.self)), isOptional: true), Wrapped?.none as Any
            )
        }
        let (value, placeholder) = try recorder.record(Wrapped.self, path: path)
        return (EntityShape.Value(value.kind, isOptional: true), Wrapped?.some(placeholder) as Any)
    }
}

/// An element type's shape and a one-element collection, or an empty one when the element is the
/// type being recorded (recursion through a collection).
private func elementShape<Element: Decodable>(
    _ type: Element.Type, recorder: ShapeRecorder, path: [ShapePathComponent]
) throws -> (EntityShape.Value, Element?) {
    if recorder.isInProgress(Element.self) {
        return (EntityShape.Value(.recursive(String(describing: Element.self))), nil)
    }
    let (value, placeholder) = try recorder.record(Element.self, path: path + [.element])
    return (value, placeholder)
}

extension Array: ShapeRecordableWrapper where Element: Decodable {
    static func recordShape(with recorder: ShapeRecorder, path: [ShapePathComponent]) throws -> (EntityShape.Value, Any)
    {
        let (element, placeholder) = try elementShape(Element.self, recorder: recorder, path: path)
        return (EntityShape.Value(.array(element)), placeholder.map { [$0] } ?? [])
    }
}

extension ContiguousArray: ShapeRecordableWrapper where Element: Decodable {
    static func recordShape(with recorder: ShapeRecorder, path: [ShapePathComponent]) throws -> (EntityShape.Value, Any)
    {
        let (element, placeholder) = try elementShape(Element.self, recorder: recorder, path: path)
        return (EntityShape.Value(.array(element)), ContiguousArray(placeholder.map { [$0] } ?? []))
    }
}

extension Set: ShapeRecordableWrapper where Element: Decodable {
    static func recordShape(with recorder: ShapeRecorder, path: [ShapePathComponent]) throws -> (EntityShape.Value, Any)
    {
        let (element, placeholder) = try elementShape(Element.self, recorder: recorder, path: path)
        return (EntityShape.Value(.array(element)), Set(placeholder.map { [$0] } ?? []))
    }
}

extension Dictionary: ShapeRecordableWrapper where Key: Decodable, Value: Decodable {
    static func recordShape(with recorder: ShapeRecorder, path: [ShapePathComponent]) throws -> (EntityShape.Value, Any)
    {
        // Codable stores a dictionary as an object only when it is keyed by strings or integers
        // (or a CodingKeyRepresentable type, whose keys the recorder cannot enumerate); any other
        // key makes an array of alternating keys and values.
        let integerKeys: Bool
        let key: Key
        if let string = "1" as? Key {
            (integerKeys, key) = (false, string)
        } else if let integer = Key.self as? any FixedWidthInteger.Type, let one = recorderOne(integer) as? Key {
            (integerKeys, key) = (true, one)
        } else {
            throw recorder.unsupported(
                Self.self, path,
                "a dictionary keyed by \(Key.self) is not recorded; key it by String or an integer type")
        }
        let (value, placeholder) = try elementShape(Value.self, recorder: recorder, path: path)
        let dictionary: [Key: Value] = placeholder.map { [key: $0] } ?? [:]
        return (EntityShape.Value(.dictionary(integerKeys: integerKeys, value)), dictionary)
    }
}

private func recorderOne<I: FixedWidthInteger>(_ type: I.Type) -> I { 1 }
