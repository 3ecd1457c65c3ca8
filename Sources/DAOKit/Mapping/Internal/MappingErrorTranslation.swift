extension MappingError {
    /// Classifies an error thrown while mapping `Source` to `Target`.
    ///
    /// The coders throw the standard `DecodingError`/`EncodingError`, so that user types which
    /// catch them keep working; here they become a ``MappingError`` of the matching kind. Any other
    /// error came from a type's own `encode(to:)` or `init(from:)` and is kept as the underlying
    /// error of a ``Kind/userError``, at `userErrorPath`, the deepest point it was seen crossing.
    /// A `typeMismatch` a type threw itself names what `sourceTree` (the mapped top-level node)
    /// holds at its path, such as an enum case the target does not have.
    init<Source, Target>(
        translating error: any Error, from source: Source.Type, to target: Target.Type,
        userErrorPath: [any CodingKey]? = nil, sourceTree: ContainerNode? = nil
    ) {
        let kind: Kind
        let path: [any CodingKey]
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            kind = .keyNotFound
            path = context.codingPath + [key]
        case DecodingError.valueNotFound(_, let context):
            kind = .valueNotFound
            path = context.codingPath
        case DecodingError.typeMismatch(let expected, let context):
            let found =
                (context.underlyingError as? FoundValueKind)?.name
                ?? sourceTree.flatMap { FoundValueDescription.describe(at: context.codingPath, in: $0) }
                ?? context.debugDescription
            kind = .typeMismatch(expected: String(describing: expected), found: found)
            path = context.codingPath
        case DecodingError.dataCorrupted(let context):
            if let number = context.underlyingError as? NumberNotRepresentable {
                kind = .numberNotRepresentable(value: number.value, target: number.target)
            } else {
                kind = .dataCorrupted(context.debugDescription)
            }
            path = context.codingPath
        case EncodingError.invalidValue(_, let context) where context.underlyingError is MapperMisuse:
            // The coders' own report of a misuse (a container used after its mapping, two kinds of
            // container for one value): the encoded data cannot be trusted.
            kind = .dataCorrupted(context.debugDescription)
            path = context.codingPath
        case EncodingError.invalidValue(_, let context):
            kind = .userError
            path = context.codingPath
        default:
            kind = .userError
            path = userErrorPath ?? []
        }
        self.init(
            sourceType: String(describing: Source.self),
            targetType: String(describing: target),
            kind: kind,
            codingPath: path,
            underlyingError: error)
    }
}
