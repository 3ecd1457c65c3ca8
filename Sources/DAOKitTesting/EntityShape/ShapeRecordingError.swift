/// Why the shape of a type could not be derived from its `Decodable` conformance, and where.
///
/// Thrown by ``EntityShape/init(of:)`` and so by ``EntityShapeCheck/verify()``. The recorder never
/// crashes on a type it cannot read; it stops at the first field it cannot record and says which.
public struct ShapeRecordingError: Error, CustomStringConvertible, Sendable {
    /// The field's path (`owner.name`, `items[].id`), empty for the type itself.
    public let field: String
    /// The type whose decoding could not be recorded.
    public let typeName: String
    /// What went wrong and what to do about it.
    public let reason: String

    /// `the shape of <field> (<type>) cannot be recorded: <reason>`.
    public var description: String {
        let subject = field.isEmpty ? typeName : "`\(field)` (\(typeName))"
        return "the shape of \(subject) cannot be recorded: \(reason)"
    }
}
