extension MappingError {
    /// What went wrong, as a code a program can switch on. New codes may be added in any release,
    /// so a `switch` over codes needs a `default:`; match one with `==`, in a `switch`, or in a
    /// `catch` (`catch MappingError.Code.typeMismatch`, see ``~=(_:_:)-(_,Error)``). The details of each
    /// (the expected and found types, the number, the message) are in ``MappingError/kind``.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static member is spelled, such as `typeMismatch`.
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The target needs a key the source does not provide.
        public static let keyNotFound = Code("keyNotFound")
        /// The target needs a value where the source has `nil`.
        public static let valueNotFound = Code("valueNotFound")
        /// The source holds a value of another type than the target reads.
        public static let typeMismatch = Code("typeMismatch")
        /// A number does not fit the target's numeric type.
        public static let numberNotRepresentable = Code("numberNotRepresentable")
        /// The source's data is not valid for the target.
        public static let dataCorrupted = Code("dataCorrupted")
        /// In strict mode, the source has a key the target never reads.
        public static let unmappedKey = Code("unmappedKey")
        /// A type's own `init(from:)` or `encode(to:)` threw.
        public static let userError = Code("userError")

        /// The code's name, as ``name``.
        public var description: String { name }

        /// Whether `error` is a ``MappingError`` with this code: `catch MappingError.Code.keyNotFound { … }`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? MappingError)?.code == pattern
        }

        /// Whether `kind` has this code, whatever its details:
        /// `case MappingError.Code.typeMismatch:` in a `switch error.kind`.
        public static func ~= (pattern: Code, kind: Kind) -> Bool {
            kind.code == pattern
        }
    }

    /// What went wrong, as a code a program can switch on (the same as `kind.code`).
    public var code: Code { kind.code }
}
