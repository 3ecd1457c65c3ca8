// Arrays decoded into storage of the right size at once.
//
// `Array.init(from:)` appends one element at a time without reserving capacity, so an array of 20
// elements reallocates its buffer five times; a hand-written translator (`map`) allocates once. The
// mapper knows how many elements an unkeyed node holds, so it decodes an `Array` itself: the same
// container calls in the same order as `Array.init(from:)` makes (so errors, paths and strict-mode
// reads are identical), into an array whose capacity is reserved first.
//
// Invariant: the one `unsafeBitCast` below converts an array to `T` inside a function whose generic
// parameter `A` was opened from `T.self`, so `A.self == T.self` and the cast is to the value's own
// type. It is checked with a precondition (a metatype comparison) in debug and release builds.

extension MappingDecoder {
    /// `T` as an array whose capacity is reserved, when `T` is an `Array`; `nil` for every other
    /// type, which decodes through its own `init(from:)`. A conformance lookup, cached by the
    /// runtime; callers make it only for values that are unkeyed nodes.
    ///
    /// (It returns the array type rather than decoding, because a generic `T?` result would make
    /// every caller look up `Optional<T>`'s metadata, taken or not.)
    @inline(__always)
    static func reservingArrayType<T: Decodable>(_ type: T.Type) -> (any ReservingArrayDecodable.Type)? {
        T.self as? any ReservingArrayDecodable.Type
    }

    /// Decodes the unkeyed node `elements` as `T`, which is `arrayType`: where `T(from: handle)`
    /// would be called, at the same nesting level, with the container that call would get.
    func decodeArray<T>(_ arrayType: any ReservingArrayDecodable.Type, as type: T.Type, elements: ContainerNode) throws
        -> T
    {
        var container = MappingUnkeyedDecodingContainer(decoder: self, node: elements)
        return try Self.decode(arrayType, as: T.self, from: &container)
    }

    private static func decode<A: ReservingArrayDecodable, T>(
        _ arrayType: A.Type, as type: T.Type, from container: inout MappingUnkeyedDecodingContainer
    ) throws -> T {
        precondition(A.self == T.self, "DAOKit internal error: array fast path opened the wrong type")
        return unsafeBitCast(try A.decodeReserving(from: &container), to: T.self)
    }
}

/// `Array`, which ``MappingDecoder/decodeArray(_:as:elements:)`` decodes with its capacity reserved.
protocol ReservingArrayDecodable {
    /// Every element of `container`, read as `Array.init(from:)` reads them.
    static func decodeReserving(from container: inout MappingUnkeyedDecodingContainer) throws -> Self
}

extension Array: ReservingArrayDecodable where Element: Decodable {
    static func decodeReserving(from container: inout MappingUnkeyedDecodingContainer) throws -> Self {
        var elements: [Element] = []
        elements.reserveCapacity(container.count ?? 0)
        while !container.isAtEnd {
            elements.append(try container.decode(Element.self))
        }
        return elements
    }
}
