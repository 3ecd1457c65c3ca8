/// An error thrown by ``EntityMapper`` when a value cannot be converted to the requested type.
///
/// A `MappingError` always says which conversion failed (``sourceType`` → ``targetType``), why
/// (``kind``) and where (``codingPath``, rendered as ``path`` in the form `messages[2].text`).
/// Errors thrown by a type's own `encode(to:)` or `init(from:)` are never lost: they are kept in
/// ``underlyingError``.
///
/// ```
/// Cannot map Message to MessageEntity: key not found at messages[2].text
/// ```
public struct MappingError: Error, CustomStringConvertible, Sendable {
    /// Why a conversion failed.
    public enum Kind: Sendable, Equatable {
        /// The target reads a key the source does not have.
        case keyNotFound
        /// The target needs a value where the source has none (`nil`).
        case valueNotFound
        /// The source holds a different kind of value than the target reads,
        /// such as a string where the target reads an integer.
        case typeMismatch(expected: String, found: String)
        /// A number does not fit the target's numeric type without changing its value:
        /// out of range, not integral, or not exactly representable.
        case numberNotRepresentable(value: String, target: String)
        /// A value is present and of the right kind but invalid, such as a raw value no enum case
        /// has, or a `DecodingError.dataCorrupted` thrown by the target's `init(from:)`.
        case dataCorrupted(String)
        /// Strict mode only: the source has a key that the target never reads.
        case unmappedKey
        /// The source's `encode(to:)` or the target's `init(from:)` threw an error of its own;
        /// it is kept in ``MappingError/underlyingError``.
        case userError
    }

    /// The name of the type being converted from.
    public let sourceType: String
    /// The name of the type being converted to.
    public let targetType: String
    /// Why the conversion failed.
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
        "Cannot map \(sourceType) to \(targetType): \(reason) at \(path)"
    }

    private var reason: String {
        switch kind {
        case .keyNotFound:
            return "key not found"
        case .valueNotFound:
            return "value not found"
        case let .typeMismatch(expected, found):
            return "type mismatch (expected \(expected), found \(found))"
        case let .numberNotRepresentable(value, target):
            return "number \(value) is not representable as \(target)"
        case let .dataCorrupted(message):
            return "data corrupted (\(message))"
        case .unmappedKey:
            return "the target never reads this key"
        case .userError:
            return "error thrown by the type itself (\(underlyingError.map { "\($0)" } ?? "unknown"))"
        }
    }
}

/// Renders coding paths as `messages[2].text`.
enum MappingPath {
    static func render(_ path: [any CodingKey]) -> String {
        if path.isEmpty { return "<root>" }
        var result = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
                result += "[\(index)]"
            } else {
                if !result.isEmpty { result += "." }
                result += key.stringValue
            }
        }
        return result
    }
}
