import Foundation

/// Converts any `Encodable` value into any `Decodable` type whose fields have the same names,
/// replacing hand-written translators between domain values and storage entities.
///
/// ```swift
/// let mapper = EntityMapper()
/// let entity = try mapper.map(message, to: MessageEntity.self)
/// let plain = try mapper.map(entity, to: Message.self)
/// let entities = try mapper.map(messages, to: [MessageEntity].self)
/// ```
///
/// The mapper encodes the value with an in-memory `Encoder` and decodes the result with an
/// in-memory `Decoder`: no JSON text, no `Data`, no `Any`. `Date`, `Data`, `URL`, `UUID` and
/// `Decimal` pass through as values, numbers convert only when the target type holds them exactly,
/// and every failure is a ``MappingError`` that names both types and the coding path.
///
/// By default the mapper is lenient: the target may ignore fields of the source. A strict mapper,
/// `EntityMapper(strict: true)`, also fails when the target never reads a field of the source, so
/// nothing is dropped without notice.
///
/// `EntityMapper` is a value type that is cheap to create and safe to use from any number of
/// threads at once; the coders it reuses for speed are kept per thread.
public struct EntityMapper: Sendable {
    /// Whether a source field that the target never reads is an error.
    public let isStrict: Bool

    /// Creates a mapper.
    /// - Parameter strict: When `true`, mapping fails with ``MappingError/Kind/unmappedKey`` if
    ///   the target type never reads a key that the source has, at any depth (null values excepted:
    ///   they carry nothing to lose).
    public init(strict: Bool = false) {
        self.isStrict = strict
    }

    /// Converts `value` to `type` through their Codable conformances.
    ///
    /// Every level of the value is converted on the calling thread, so `encode(to:)` and
    /// `init(from:)` at any depth see the caller's task-local values and actor isolation, and
    /// nothing is ever run twice. A value may nest as deep as that thread's stack holds; a level
    /// that would not fit (with a reserve kept free) is refused — map very deep values on a thread
    /// with a larger stack.
    ///
    /// A class's subclass passed as `type` (`Employee.self as Person.Type`) is the type decoded,
    /// as with `JSONDecoder`; the elements of a collection decode as its static element type.
    ///
    /// A value whose `encode(to:)` writes nothing maps as an empty keyed value (`{}`), at the top
    /// level as anywhere else; `JSONEncoder` refuses it only at the top, where a document needs a
    /// root.
    ///
    /// - Returns: a new instance of `type` holding `value`'s fields.
    /// - Throws: ``MappingError`` when a field is missing, of another kind, out of range for the
    ///   target's numeric type, invalid, unread in strict mode, nested deeper than the calling
    ///   thread's stack holds (``MappingError/Kind/dataCorrupted(_:)``), or when either type's own
    ///   `encode(to:)` or `init(from:)` throws.
    public func map<Source: Encodable, Target: Decodable>(_ value: Source, to type: Target.Type) throws -> Target {
        try CodingSession.withSession { session in
            let arena = session.arena
            let root = arena.makeRoot()
            let result: Target
            do {
                try session.encoder.encodeTopLevel(value, into: root)
                // `type`, not `Target.self`: `Employee.self as Person.Type` decodes an `Employee`, as
                // `JSONDecoder` does.
                result = try session.decoder.decodeTopLevel(type, from: root)
            } catch {
                throw MappingError(
                    translating: error, from: Source.self, to: type,
                    userErrorPath: arena.userErrorPath(for: error), sourceTree: root)
            }
            if isStrict, let unread = UnreadKeys.first(in: root) {
                throw MappingError(
                    sourceType: String(describing: Source.self),
                    targetType: String(describing: type),
                    kind: .unmappedKey,
                    codingPath: unread)
            }
            return result
        }
    }
}
