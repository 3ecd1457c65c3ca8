/// A value nests containers (keyed and unkeyed ones: JSON's objects and arrays) deeper than a
/// store's format holds: the ``StorageError/underlyingError`` of an
/// ``StorageError/Kind/encodingFailed`` error from a context that stores records as JSON.
///
/// `EntityMapper` and the in-memory context map values as deep as the thread's stack holds, but
/// Foundation's `JSONEncoder` writes at most ``limit`` levels, so the key-value context, the file
/// store's JSON records, SQLite and PostgreSQL refuse a deeper value when it is written — nothing
/// is stored — rather than store what they could not read back. The file store's property-list
/// records have no such limit. See "Errors and unreadable records" in the documentation.
public struct NestingLimitError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The keys from the entity to the first container beyond the limit, rendered as
    /// `child.child[0].child` (abbreviated in the middle when long: `a.b.c … x.y.z`).
    public let path: String
    /// How many keys ``path`` has: the depth of the container that does not fit.
    public let depth: Int
    /// The most levels of containers the format holds.
    public let limit: Int

    /// An error for a container `depth` keys deep, at `path`, in a format that holds `limit` levels.
    public init(path: String, depth: Int, limit: Int) {
        self.path = path
        self.depth = depth
        self.limit = limit
    }

    /// `the value nests containers deeper than the 511 levels JSON holds here, at child.child … child`.
    public var description: String {
        "the value nests containers deeper than the \(limit) levels JSON holds here, at \(path) (\(depth) keys deep)"
    }
}
