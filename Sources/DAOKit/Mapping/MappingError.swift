/// An error thrown by ``EntityMapper`` when a value cannot be converted to the requested type.
///
/// A `MappingError` always says which conversion failed (``sourceType`` → ``targetType``), why
/// (``code``, and ``kind`` with its details) and where (``codingPath``, rendered as ``path`` in the
/// form `messages[2].text`).
/// Errors thrown by a type's own `encode(to:)` or `init(from:)` are never lost: they are kept in
/// ``underlyingError``.
///
/// ```
/// Cannot map Message to MessageEntity: key not found at messages[2].text
/// ```
public struct MappingError: Error, CustomStringConvertible, Sendable {
    /// The name of the type being converted from.
    public let sourceType: String
    /// The name of the type being converted to.
    public let targetType: String
    /// Why the conversion failed: its ``Kind/code`` and details such as the expected and found types.
    public let kind: Kind
    /// The keys from the top-level value to the failing value.
    public let codingPath: [any CodingKey]
    /// The error a user type threw, or the `EncodingError`/`DecodingError` the failure was
    /// reported as, when there was one.
    public let underlyingError: (any Error)?

    /// Creates a mapping error.
    public init(
        sourceType: String,
        targetType: String,
        kind: Kind,
        codingPath: [any CodingKey],
        underlyingError: (any Error)? = nil
    ) {
        self.sourceType = sourceType
        self.targetType = targetType
        self.kind = kind
        self.codingPath = codingPath
        self.underlyingError = underlyingError
    }

    /// This error as it would read had the value been mapped as element `index` of an array:
    /// `Array<…>` types and the index as the first step of the path.
    func inArray(at index: Int) -> MappingError {
        MappingError(
            sourceType: "Array<\(sourceType)>",
            targetType: "Array<\(targetType)>",
            kind: kind,
            codingPath: [MappingKey.index(index)] + codingPath,
            underlyingError: underlyingError)
    }

    /// The coding path in the form `messages[2].text`; `<root>` for the top-level value.
    public var path: String {
        MappingPath.render(codingPath)
    }

    /// `Cannot map <source> to <target>: <reason> at <path>`.
    public var description: String {
        "Cannot map \(sourceType) to \(targetType): \(reasonText) at \(path)"
    }

    /// The reason part of ``description``, without the types and the path.
    var reasonText: String {
        switch kind.details {
        case .typeMismatch(let expected, let found):
            return "type mismatch (expected \(expected), found \(found))"
        case .numberNotRepresentable(let value, let target):
            return "number \(value) is not representable as \(target)"
        case .dataCorrupted(let message):
            return "data corrupted (\(message))"
        case .none:
            break
        }
        switch code {
        case .keyNotFound:
            return "key not found"
        case .valueNotFound:
            return "value not found"
        case .unmappedKey:
            return "the target never reads this key"
        case .userError:
            return "error thrown by the type itself (\(underlyingError.map { "\($0)" } ?? "unknown"))"
        default:
            return code.name
        }
    }
}
