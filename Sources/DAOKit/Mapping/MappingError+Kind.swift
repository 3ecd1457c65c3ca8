extension MappingError {
    /// Why a conversion failed: a ``Code`` and, for some codes, the details.
    ///
    /// Written like the cases of an enumeration — `.keyNotFound`, `.typeMismatch(expected: "Int",
    /// found: "String")` — and compared with `==` or matched by code in a `switch`
    /// (`case MappingError.Code.typeMismatch:`); it is a structure so that kinds can be added without
    /// breaking callers' exhaustive switches. Read the details with ``expectedType`` and ``found``
    /// (`typeMismatch`), ``number`` and ``numericType`` (`numberNotRepresentable`) and ``message``
    /// (`dataCorrupted`); each is `nil` for every other kind.
    public struct Kind: Sendable, Equatable, CustomStringConvertible {
        /// What went wrong.
        public let code: Code
        /// The values the kind was built with; `.none` for a kind that carries none.
        let details: Details

        /// The details a kind can carry, one case per code that has any. Internal, so that a new
        /// kind with new details changes no public type's shape.
        enum Details: Sendable, Equatable {
            case none
            case typeMismatch(expected: String, found: String)
            case numberNotRepresentable(value: String, target: String)
            case dataCorrupted(message: String)
        }

        private init(_ code: Code, _ details: Details = .none) {
            self.code = code
            self.details = details
        }

        /// The target reads a key the source does not have.
        public static let keyNotFound = Kind(.keyNotFound)
        /// The target needs a value where the source has none (`nil`).
        public static let valueNotFound = Kind(.valueNotFound)
        /// The source holds a different kind of value than the target reads, such as a string
        /// where the target reads an integer. `expected` names what the target reads (a type such
        /// as `Int`, or a container such as `UnkeyedDecodingContainer`); `found` says what the
        /// source holds there (`String`, `keyed container`, `unknown case "urgent"`).
        public static func typeMismatch(expected: String, found: String) -> Kind {
            Kind(.typeMismatch, .typeMismatch(expected: expected, found: found))
        }
        /// A number does not fit the target's numeric type without changing its value: out of
        /// range, not integral, or not exactly representable. `value` is the number as the source
        /// holds it (`300`), `target` the numeric type it does not fit (`Int8`).
        public static func numberNotRepresentable(value: String, target: String) -> Kind {
            Kind(.numberNotRepresentable, .numberNotRepresentable(value: value, target: target))
        }
        /// A value is present and of the right kind but invalid, such as a raw value no enum case
        /// has, or a `DecodingError.dataCorrupted` thrown by the target's `init(from:)`; `message`
        /// says why.
        public static func dataCorrupted(_ message: String) -> Kind {
            Kind(.dataCorrupted, .dataCorrupted(message: message))
        }
        /// Strict mode only: the source has a key that the target never reads.
        public static let unmappedKey = Kind(.unmappedKey)
        /// The source's `encode(to:)` or the target's `init(from:)` threw an error of its own;
        /// it is kept in ``MappingError/underlyingError``.
        public static let userError = Kind(.userError)

        /// For `typeMismatch`, what the target reads, such as `Int`; `nil` for other kinds.
        public var expectedType: String? {
            guard case .typeMismatch(let expected, _) = details else { return nil }
            return expected
        }

        /// For `typeMismatch`, what the source holds instead, such as `String` or
        /// `unknown case "urgent"`; `nil` for other kinds.
        public var found: String? {
            guard case .typeMismatch(_, let found) = details else { return nil }
            return found
        }

        /// For `numberNotRepresentable`, the number as the source holds it, such as `300`;
        /// `nil` for other kinds.
        public var number: String? {
            guard case .numberNotRepresentable(let value, _) = details else { return nil }
            return value
        }

        /// For `numberNotRepresentable`, the numeric type the number does not fit, such as `Int8`;
        /// `nil` for other kinds.
        public var numericType: String? {
            guard case .numberNotRepresentable(_, let target) = details else { return nil }
            return target
        }

        /// For `dataCorrupted`, why the value is invalid; `nil` for other kinds.
        public var message: String? {
            guard case .dataCorrupted(let message) = details else { return nil }
            return message
        }

        /// As the kind is written: `keyNotFound`, `typeMismatch(expected: "Int", found: "String")`.
        public var description: String {
            switch details {
            case .none:
                return code.name
            case .typeMismatch(let expected, let found):
                return "\(code.name)(expected: \(expected.debugDescription), found: \(found.debugDescription))"
            case .numberNotRepresentable(let value, let target):
                return "\(code.name)(value: \(value.debugDescription), target: \(target.debugDescription))"
            case .dataCorrupted(let message):
                return "\(code.name)(\(message.debugDescription))"
            }
        }
    }
}
