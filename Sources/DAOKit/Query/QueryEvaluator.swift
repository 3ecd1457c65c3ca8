/// Evaluates a ``StorageQuery`` on entities in Swift: the evaluation every context falls back to,
/// and the meaning a context's own translation (an index walk, SQL) must reproduce.
///
/// Built once per query: the filter is compiled to refer to fields by position, and one
/// ``FieldExtractor`` reads every field the query needs from an entity in one encode.
package struct QueryEvaluator: Sendable {
    let query: StorageQuery
    /// Reads ``StorageQuery/fields`` from an entity, in that order.
    let extractor: FieldExtractor
    private let filter: CompiledFilter?
    /// Each sort key with the position of its field in the extracted values.
    private let sortKeys: [(position: Int, key: StorageSortKey)]

    package init(_ query: StorageQuery) {
        self.init(query, fields: query.fields)
    }

    /// An evaluator of `query` on values of `fields` (which hold at least the query's fields), in
    /// that order: for values read once for many queries, as an index's.
    init(_ query: StorageQuery, fields: [FieldPath]) {
        self.query = query
        extractor = FieldExtractor(fields: fields)
        filter = query.filter.map { CompiledFilter($0, fields: fields) }
        sortKeys = query.sort.map { key in (fields.firstIndex(of: key.field)!, key) }
    }

    /// The values of the query's fields in `entity`.
    /// - Throws: ``StorageError`` of kind ``StorageError/Kind/encodingFailed`` naming the entity
    ///   when its `encode(to:)` throws.
    func fieldValues<E: Storable>(of entity: E) throws -> [StorageValue] {
        do {
            return try extractor.values(of: entity)
        } catch {
            throw StorageError(
                .encodingFailed, entityName: E.entityName, key: entity.id.storageKey,
                underlyingError: error)
        }
    }

    /// Whether values read by ``fieldValues(of:)`` pass the filter.
    @inline(__always)
    func matches<Values: RandomAccessCollection<StorageValue>>(_ values: Values) -> Bool where Values.Index == Int {
        filter?.matches(values) ?? true
    }

    /// Whether an entity with `lhs` sorts strictly before one with `rhs`.
    func precedes<Values: RandomAccessCollection<StorageValue>>(_ lhs: Values, _ rhs: Values) -> Bool
    where Values.Index == Int {
        for (position, key) in sortKeys {
            switch key.compare(lhs[position], rhs[position]) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return false
    }

    /// The page ``StorageQuery/offset`` and ``StorageQuery/limit`` select from `count` results.
    /// Entry points refuse a negative page (``StorageQuery/validate(entityName:)``); one that got
    /// past them reads as zero rather than trapping.
    func page(ofCount count: Int) -> Range<Int> {
        let start = min(max(query.offset, 0), count)
        let end = query.limit.map { start + min(max($0, 0), count - start) } ?? count
        return start..<end
    }

    /// The entities that match, sorted (stably: ties keep their order in `entities`) and paged.
    /// - Throws: as ``fieldValues(of:)``.
    package func apply<E: Storable>(to entities: [E]) throws -> [E] {
        try select(entities, values: fieldValues(of:))
    }

    /// The items whose field values (read by `values`) match, sorted (stably: ties keep their
    /// order in `items`) and paged: ``apply(to:)`` on anything that yields field values, such as
    /// the stored snapshots of the in-memory table.
    /// - Throws: what `values` throws.
    func select<Item>(_ items: [Item], values: (Item) throws -> [StorageValue]) throws -> [Item] {
        var kept: [(item: Item, values: [StorageValue])] = []
        for item in items {
            let itemValues = try values(item)
            if matches(itemValues) { kept.append((item, itemValues)) }
        }
        if !sortKeys.isEmpty {
            // `sort` is not documented as stable; the position breaks ties so that this is.
            var indexed = kept.enumerated().map { ($0.offset, $0.element) }
            indexed.sort { lhs, rhs in
                if precedes(lhs.1.values, rhs.1.values) { return true }
                if precedes(rhs.1.values, lhs.1.values) { return false }
                return lhs.0 < rhs.0
            }
            kept = indexed.map(\.1)
        }
        return kept[page(ofCount: kept.count)].map(\.item)
    }

    /// How many of `entities` match.
    /// - Throws: as ``fieldValues(of:)``.
    package func count<E: Storable>(in entities: [E]) throws -> Int {
        var count = 0
        for entity in entities where matches(try fieldValues(of: entity)) { count += 1 }
        return count
    }
}

/// A ``StorageFilter`` whose fields are positions in the values a ``FieldExtractor`` returns.
///
/// The equalities filters are made of most — a flag, an integer id — have cases of their own that
/// test the usual kind of value directly, where ``StorageComparison/holds(_:_:)`` goes through
/// the general comparison of any two kinds: an indexed query tests one on every entry it walks.
enum CompiledFilter: Sendable {
    case compare(Int, StorageComparison, StorageValue)
    /// `== .bool(value)`, or `!=` when `negated`. A `Bool` equals only a `Bool`.
    case isBool(Int, Bool, negated: Bool)
    /// `== .int(value)`, or `!=` when `negated`: an `int` is compared directly, any other kind as
    /// ``StorageValue/equal(_:_:)`` compares it.
    case isInt(Int, Int64, negated: Bool)
    case isIn(Int, [StorageValue])
    case hasPrefix(Int, String)
    case contains(Int, String)
    case and([CompiledFilter])
    case or([CompiledFilter])
    indirect case not(CompiledFilter)

    /// `filter` with each field replaced by its position in `fields`.
    /// - Precondition: `fields` holds every field of `filter`.
    init(_ filter: StorageFilter, fields: [FieldPath]) {
        func position(_ field: FieldPath) -> Int { fields.firstIndex(of: field)! }
        switch filter {
        case .compare(let field, let comparison, .bool(let value))
        where comparison == .equal || comparison == .notEqual:
            self = .isBool(position(field), value, negated: comparison == .notEqual)
        case .compare(let field, let comparison, .int(let value)) where comparison == .equal || comparison == .notEqual:
            self = .isInt(position(field), value, negated: comparison == .notEqual)
        case .compare(let field, let comparison, let value): self = .compare(position(field), comparison, value)
        case .isIn(let field, let values): self = .isIn(position(field), values)
        case .hasPrefix(let field, let prefix): self = .hasPrefix(position(field), prefix)
        case .contains(let field, let other): self = .contains(position(field), other)
        case .and(let filters): self = .and(filters.map { CompiledFilter($0, fields: fields) })
        case .or(let filters): self = .or(filters.map { CompiledFilter($0, fields: fields) })
        case .not(let filter): self = .not(CompiledFilter(filter, fields: fields))
        }
    }

    /// Whether the filter holds for these field values (``StorageFilter``'s meaning).
    func matches<Values: RandomAccessCollection<StorageValue>>(_ values: Values) -> Bool where Values.Index == Int {
        switch self {
        case .compare(let position, let comparison, let value):
            return comparison.holds(values[position], value)
        case .isBool(let position, let expected, let negated):
            guard case .bool(let value) = values[position] else { return negated }
            return (value == expected) != negated
        case .isInt(let position, let expected, let negated):
            guard case .int(let value) = values[position] else {
                return StorageValue.equal(values[position], .int(expected)) != negated
            }
            return (value == expected) != negated
        case .isIn(let position, let candidates):
            let value = values[position]
            return candidates.contains { StorageValue.equal(value, $0) }
        case .hasPrefix(let position, let prefix):
            guard case .string(let string) = values[position] else { return false }
            return string.starts(with: prefix)
        case .contains(let position, let other):
            guard case .string(let string) = values[position] else { return false }
            return collectionContains(string, other)
        case .and(let filters):
            return filters.allSatisfy { $0.matches(values) }
        case .or(let filters):
            return filters.contains { $0.matches(values) }
        case .not(let filter):
            return !filter.matches(values)
        }
    }
}

extension StorageFilter {
    /// Whether `entity` passes this filter, evaluated in Swift with the filter's meaning: what a
    /// context calls for the parts of a filter it cannot translate.
    /// - Throws: ``StorageError`` of kind ``StorageError/Kind/encodingFailed`` when the entity's
    ///   `encode(to:)` throws.
    public func matches<E: Storable>(_ entity: E) throws -> Bool {
        let evaluator = QueryEvaluator(StorageQuery(filter: self))
        return evaluator.matches(try evaluator.fieldValues(of: entity))
    }
}

extension StorageQuery {
    /// The entities of `entities` this query selects, in its order (stable: entities the sort
    /// leaves tied keep their order in `entities`), paged: the evaluation in Swift every context
    /// must agree with.
    /// - Throws: ``StorageError`` of kind ``StorageError/Kind/encodingFailed`` when an entity's
    ///   `encode(to:)` throws; of code ``StorageError/Code/invalidQuery`` for a negative limit or
    ///   offset.
    public func apply<E: Storable>(to entities: [E]) throws -> [E] {
        try validate(entityName: E.entityName)
        return try QueryEvaluator(self).apply(to: entities)
    }
}

/// `base.contains(other)` as a generic collection search, character by character: the
/// `contains` a `#Predicate`'s `CollectionContainsCollection` evaluates, rather than Foundation's
/// `StringProtocol.contains`, which compares differently.
private func collectionContains<C: Collection>(_ base: C, _ other: C) -> Bool where C.Element: Equatable {
    base.contains(other)
}
