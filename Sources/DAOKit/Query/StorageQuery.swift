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

    /// A query.
    /// - Precondition: `offset >= 0`, and `limit >= 0` when given.
    public init(filter: StorageFilter? = nil, sort: [StorageSortKey] = [], limit: Int? = nil, offset: Int = 0) {
        precondition(offset >= 0, "StorageQuery offset must not be negative (got \(offset))")
        precondition((limit ?? 0) >= 0, "StorageQuery limit must not be negative (got \(limit ?? 0))")
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
}
