/// What to read from a ``StorageContext``: which entities (``filter``), in which order
/// (``sort``), and which page of them (``offset``, ``limit``).
///
/// A context-neutral description: the in-memory and file contexts evaluate it on entities, a SQL
/// context translates it to SQL, and anything a context cannot translate exactly it evaluates in
/// Swift with ``StorageFilter/matches(_:)`` and ``apply(to:)``. ``BaseDao`` builds queries from
/// `#Predicate` and `SortDescriptor`s where it can prove the translation exact.
public struct StorageQuery: Sendable, Hashable {
    /// Entities for which it does not hold are left out; `nil` keeps every entity.
    public var filter: StorageFilter?
    /// Applied in order: the first key decides, later ones break its ties. Entities still tied come
    /// in an order the context chooses.
    public var sort: [StorageSortKey]
    /// At most this many entities are returned; `nil` for no limit.
    public var limit: Int?
    /// This many entities are skipped, after filtering and sorting.
    public var offset: Int

    /// A query. Any values are accepted here; a negative `limit` or `offset` is refused when the
    /// query runs (see ``validate(entityName:)``), so that a value passed through from a request
    /// never traps.
    public init(filter: StorageFilter? = nil, sort: [StorageSortKey] = [], limit: Int? = nil, offset: Int = 0) {
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }

    /// Every field the query reads (filter first, then sort), each once.
    public var fields: [FieldPath] {
        var fields = filter?.fields ?? []
        for key in sort where !fields.contains(key.field) { fields.append(key.field) }
        return fields
    }

    /// Throws unless the query can be answered: `offset >= 0`, and `limit >= 0` when given. Every
    /// shipped context calls it first in `fetch(_:matching:)`; a context of your own should too.
    /// - Parameter entityName: the entity the query reads, named in the error.
    /// - Throws: ``StorageError`` of code ``StorageError/Code/invalidQuery`` naming the value.
    public func validate(entityName: String? = nil) throws {
        try Self.validatePage(limit: limit, offset: offset, entityName: entityName)
    }

    /// Throws ``StorageError/Code/invalidQuery`` for a negative `offset` or `limit`: the check every
    /// paged entry point (``BaseDao``, ``DomainQuery``, the contexts) makes before reading.
    static func validatePage(limit: Int?, offset: Int, entityName: String?) throws {
        if offset < 0 {
            throw StorageError(.invalidQuery("offset \(offset) is negative"), entityName: entityName)
        }
        if let limit, limit < 0 {
            throw StorageError(.invalidQuery("limit \(limit) is negative"), entityName: entityName)
        }
    }
}
