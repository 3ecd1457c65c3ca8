import DAOKitInternals

/// The entities of one entity name in an ``InMemoryStorageContext``, with the indexes their type
/// declares. Only ever touched under the context's lock; nothing here runs user code (entities'
/// field values for the indexes are read before the lock is taken), so everything a query does
/// here it can do under the lock.
///
/// A table is a value, and copying it is cheap: the copy shares the records (and the storage of
/// the dictionary and the indexes, until either changes). That is how a transaction takes the
/// tables it touches (see `InMemoryStorageContext+Transactions.swift`). The invariant that makes
/// sharing sound: a record is changed in place only when exactly one table holds it
/// (`isKnownUniquelyReferenced`, see ``store(_:values:forKey:order:)``); one that two tables hold
/// is replaced by a new record in the table that writes. So a table never sees a record change
/// under it, whichever lock the other table is read under.
package struct InMemoryTable {
    /// Storage key → stored record.
    private(set) var records: [String: InMemoryRecord] = [:]
    /// The indexes kept, and the fields every record carries values of.
    package private(set) var layout: IndexLayout
    /// One tree per index of ``layout``, in the same order; `nil` for one not built yet (a table
    /// loaded at once builds each index when a query first walks it), which writes skip.
    private var trees: [SortedChunks<IndexEntry>?]
    /// How many records hold a snapshot of each entity type: more than one type means another
    /// type was saved under the same entity name, whose entities a query must check (see
    /// ``snapshots(notOf:)``).
    private var typeCounts: [ObjectIdentifier: Int] = [:]
    /// For each index of ``layout``, when it is unique: its values → the key of the record holding
    /// them (records without unique values are not in it). `nil` for an index that is not unique,
    /// and for a unique one whose map is not built yet (a loaded table builds it at the first
    /// write that checks it), which writes skip.
    private var uniqueHolders: [[[UniqueScalar]: String]?]

    package init(layout: IndexLayout) {
        self.layout = layout
        trees = Array(repeating: SortedChunks(), count: layout.indexes.count)
        uniqueHolders = layout.indexes.map { $0.isUnique ? [:] : nil }
    }

    /// A table of records added in turn through a ``Loader``, as storing each would build it (a
    /// later entity under a key replaces an earlier one), but with its indexes built only when a
    /// query first walks one (see ``select(_:)``), each sorted once rather than kept sorted through
    /// every insertion: a file context's first query, which loads the table, builds only the index
    /// it walks.
    package struct Loader {
        private var table: InMemoryTable
        /// The type of the last records added, and how many: types are counted by runs as the
        /// records go in, a dictionary update per run rather than per record.
        private var run: (type: ObjectIdentifier, count: Int)?

        /// Starts a table of about `capacity` records.
        package init(layout: IndexLayout, capacity: Int) {
            table = InMemoryTable(layout: layout)
            table.records.reserveCapacity(capacity)
            table.trees = Array(repeating: nil, count: layout.indexes.count)
            table.uniqueHolders = Array(repeating: nil, count: layout.indexes.count)
        }

        /// Adds `snapshot` under `key`, with the values of its indexed fields, both taken over by
        /// the record rather than copied; a new key gets `order`, which then moves on by one.
        package mutating func add(
            _ snapshot: consuming any Storable, values: consuming [StorageValue], forKey key: String,
            order: inout UInt64
        ) {
            let record = InMemoryRecord.make(key: key, snapshot: snapshot, indexValues: values, order: order)
            let type = ObjectIdentifier(Swift.type(of: record.snapshot))
            if run?.type == type {
                run!.count += 1
            } else {
                if let run { table.typeCounts[run.type, default: 0] += run.count }
                run = (type, 1)
            }
            // One hash per key; a key seen before (rare) gets its earlier record back, with its order.
            if let earlier = table.records.updateValue(record, forKey: key) {
                table.count(earlier.snapshot, by: -1)
                earlier.snapshot = record.snapshot
                earlier.setIndexValues(record.indexValues)  // one layout for the whole table: as many
                table.records[key] = earlier
            } else {
                order &+= 1
            }
        }

        /// The table of the records added.
        package consuming func finish() -> InMemoryTable {
            if let run { table.typeCounts[run.type, default: 0] += run.count }
            table.typeCounts = table.typeCounts.filter { $0.value != 0 }  // a type all of whose entities were replaced
            return table
        }
    }

    /// Builds the tree of index `index` from the records, if it is not built yet.
    private mutating func buildIndex(_ index: Int) {
        guard trees[index] == nil else { return }
        // Sorted as positions, each comparison reading the entries where they lie, and then moved
        // into the chunks: sorting or copying the entries themselves retains and releases each
        // one's values at every step, a cache miss apiece in a large table (the arrays lie all
        // over the heap).
        let count = records.count
        let entries = UnsafeMutablePointer<IndexEntry>.allocate(capacity: count)
        defer { entries.deallocate() }  // every entry is moved out below
        var made = 0
        for record in records.values {
            (entries + made).initialize(to: layout.entry(of: record, in: index))
            made += 1
        }
        var order = Array(0..<count)
        order.sort { IndexEntry.isBelow(entries + $0, entries + $1) }
        trees[index] = SortedChunks(count: count) { position in (entries + order[position]).move() }
    }

    package var count: Int { records.count }

    /// Stores `snapshot` under `key`, with the values of its indexed fields; returns the snapshot
    /// it replaces. `order` is the position a new key takes among entries with equal values.
    ///
    /// Replacing an entity whose indexed fields did not change leaves every index untouched: the
    /// record is updated in place, and entries point to the record. A record another table shares
    /// is replaced instead, in the dictionary and in every index.
    package mutating func store(_ snapshot: any Storable, values: [StorageValue], forKey key: String, order: UInt64)
        -> (any Storable)?
    {
        guard let position = records.index(forKey: key) else {
            count(snapshot, by: 1)
            let record = InMemoryRecord.make(key: key, snapshot: snapshot, indexValues: values, order: order)
            records[key] = record
            for index in trees.indices where trees[index] != nil {
                trees[index]!.insert(layout.entry(of: record, in: index))
            }
            if layout.hasUniqueIndex { noteUniqueValues(of: key, from: nil, to: values) }
            return nil
        }
        // Asked before the record is bound below, which retains it. The access makes the
        // dictionary's storage this table's own first (copying it, and so retaining every record,
        // when another table shares it), so a record is unique here only when no other table
        // holds it.
        let isShared = !isKnownUniquelyReferenced(&records.values[position])
        let record = records.values[position]
        let old = record.snapshot
        if Swift.type(of: old) != Swift.type(of: snapshot) {
            count(old, by: -1)
            count(snapshot, by: 1)
        }
        if isShared || values.count != record.indexValueCount {
            // Another table reads this record (a transaction's copy, or the table it copied):
            // changed in place, it would change there too. Or another type with other indexed
            // fields took the name over: the table keeps no index any more (see `dropIndexes`),
            // and a record carries as many values as there are.
            precondition(
                isShared || trees.isEmpty,
                "DAOKit internal error: a record's index values change in number while indexes are kept")
            replace(record, at: position, snapshot: snapshot, values: values)
            return old
        }
        if !record.withIndexValues({ $0.elementsEqual(values) }) {
            if layout.hasUniqueIndex {
                record.withIndexValues { old in noteUniqueValues(of: key, from: Array(old), to: values) }
            }
            moveEntries(of: record, to: values)
        }
        record.snapshot = snapshot
        record.revision &+= 1
        return old
    }

    /// Puts a new record, holding `snapshot` and `values`, in the place of `record` (the one at
    /// `position`), in the dictionary and in every index: its key, order and next revision.
    private mutating func replace(
        _ record: InMemoryRecord, at position: [String: InMemoryRecord].Index, snapshot: any Storable,
        values: [StorageValue]
    ) {
        let replacement = InMemoryRecord.make(
            key: record.key, snapshot: snapshot, indexValues: values, order: record.order)
        replacement.revision = record.revision &+ 1
        if layout.hasUniqueIndex {
            record.withIndexValues { old in noteUniqueValues(of: record.key, from: Array(old), to: values) }
        }
        record.withIndexValues { old in
            for index in trees.indices where trees[index] != nil {
                precondition(trees[index]!.remove(layout.target(old, of: record, in: index)) != nil, Self.lostEntry)
            }
        }
        records.values[position] = replacement
        for index in trees.indices where trees[index] != nil {
            trees[index]!.insert(layout.entry(of: replacement, in: index))
        }
    }

    /// Gives `record` the index values `values` (as many as it has, and different), moving its
    /// entry in every index whose fields change: each is taken out while the record still holds
    /// the values it is ordered by, and put back once it holds the new ones. An index whose
    /// fields keep their values keeps the entry where it is.
    private mutating func moveEntries(of record: InMemoryRecord, to values: [StorageValue]) {
        withUnsafeTemporaryAllocation(of: IndexEntry?.self, capacity: trees.count) { taken in
            record.withIndexValues { old in
                for index in trees.indices {
                    (taken.baseAddress! + index).initialize(to: nil)
                    guard trees[index] != nil else { continue }
                    // The layout's parts are read here rather than through `layout.target(_:of:in:)`:
                    // calling the layout's methods in this closure, which changes `trees`, copies the
                    // whole layout first (a retain and a release of each of its arrays, on every
                    // persist).
                    let (positions, count) = (layout.positions(in: index), layout.indexes[index].fields.count)
                    if IndexEntry.fieldsAreEqual(old, values, fields: positions, count: count) { continue }
                    let target = IndexEntry.Target(values: old, fields: positions, count: count, record: record)
                    guard let entry = trees[index]!.remove(target) else { preconditionFailure(Self.lostEntry) }
                    (taken.baseAddress! + index).pointee = entry
                }
            }
            record.setIndexValues(values)
            for index in trees.indices {
                // Moved out: the temporary memory is left uninitialized, as it came.
                guard var entry = (taken.baseAddress! + index).move() else { continue }
                entry.reload(fields: layout.positions(in: index))
                trees[index]!.insert(entry)
            }
        }
    }

    /// Why a write stops when an index does not find a record's entry: left behind, the entry
    /// would hold its record unretained (see ``IndexEntry``) after the record is freed,
    /// and the next walk over it would read freed memory. Only an order that is not total (as a
    /// NaN date's once was) makes an entry unfindable.
    private static let lostEntry = "an index lost track of a record's entry: its order is not total"

    /// Removes the record under `key`; returns its snapshot.
    package mutating func remove(forKey key: String) -> (any Storable)? {
        guard let record = records.removeValue(forKey: key) else { return nil }
        if layout.hasUniqueIndex {
            record.withIndexValues { values in noteUniqueValues(of: key, from: Array(values), to: nil) }
        }
        record.withIndexValues { values in
            for index in trees.indices where trees[index] != nil {
                precondition(trees[index]!.remove(layout.target(values, of: record, in: index)) != nil, Self.lostEntry)
            }
        }
        count(record.snapshot, by: -1)
        return record.snapshot
    }

    private mutating func count(_ snapshot: any Storable, by change: Int) {
        let type = ObjectIdentifier(Swift.type(of: snapshot))
        let count = typeCounts[type, default: 0] + change
        typeCounts[type] = count == 0 ? nil : count
    }

    /// The records holding an entity of another type than `type`: saved under the same entity
    /// name by another type. A full scan reads them all as `type`, and fails on one that does not
    /// read; a query must too, to answer the same. Empty, without looking at any record, in the
    /// usual case of one type per name.
    func snapshots(notOf type: Any.Type) -> [Selected] {
        guard typeCounts.count > 1 || (typeCounts.count == 1 && typeCounts[ObjectIdentifier(type)] == nil) else {
            return []
        }
        return records.values.filter { Swift.type(of: $0.snapshot) != type }.map(Selected.init)
    }

    /// Stops keeping indexes: another entity type with different indexes now shares the name, so
    /// the values records carry no longer follow one layout. Queries scan from then on.
    mutating func dropIndexes() {
        layout = .none
        trees = []
        uniqueHolders = []
    }

    // MARK: - Unique indexes

    /// Moves the record under `key` from the unique values of `old` to those of `new` in every
    /// built map (`nil`: the record is new, or removed).
    private mutating func noteUniqueValues(of key: String, from old: [StorageValue]?, to new: [StorageValue]?) {
        for index in uniqueHolders.indices where uniqueHolders[index] != nil {
            let before = old.flatMap { layout.uniqueTuple($0, in: index) }
            let after = new.flatMap { layout.uniqueTuple($0, in: index) }
            if before == after { continue }
            if let before, uniqueHolders[index]![before] == key { uniqueHolders[index]![before] = nil }
            if let after { uniqueHolders[index]![after] = key }
        }
    }

    /// Builds the map of unique index `index` from the records, if it is not built yet.
    /// - Throws: ``StorageError/Code/uniqueViolation`` naming two records that hold equal values
    ///   already (the index was declared over data that breaks it); the map stays unbuilt.
    private mutating func buildUniqueHolders(_ index: Int, entityName: String) throws {
        guard uniqueHolders[index] == nil else { return }
        var holders: [[UniqueScalar]: String] = [:]
        holders.reserveCapacity(records.count)
        // In key order, so that the two records named are the same every time.
        for key in records.keys.sorted() {
            let record = records[key]!
            guard let tuple = record.withIndexValues({ layout.uniqueTuple(Array($0), in: index) }) else { continue }
            if let holder = holders.updateValue(key, forKey: tuple) {
                throw UniqueIndexViolation.error(
                    entityName: entityName, key: key, index: layout.indexes[index], existingKey: holder)
            }
        }
        uniqueHolders[index] = holders
    }

    /// Throws ``StorageError/Code/uniqueViolation`` when storing `batch` (in order, a later entry
    /// under a key replacing an earlier one) would leave two records holding equal values in a
    /// unique index: the batch is judged by the state it leaves, so two records may swap values.
    /// Changes nothing but the maps it builds.
    package mutating func checkUnique(_ batch: [(key: String, values: [StorageValue])], entityName: String) throws {
        guard layout.hasUniqueIndex else { return }
        var last: [String: Int] = [:]
        for (position, entry) in batch.enumerated() { last[entry.key] = position }
        for index in layout.indexes.indices where layout.indexes[index].isUnique {
            try buildUniqueHolders(index, entityName: entityName)
            var written: [[UniqueScalar]: String] = [:]
            for (position, entry) in batch.enumerated() where last[entry.key] == position {
                guard let tuple = layout.uniqueTuple(entry.values, in: index) else { continue }
                if let earlier = written.updateValue(entry.key, forKey: tuple) {
                    throw UniqueIndexViolation.error(
                        entityName: entityName, key: entry.key, index: layout.indexes[index], existingKey: earlier)
                }
                // A holder the batch rewrites is judged by its new values, above.
                if let holder = uniqueHolders[index]![tuple], holder != entry.key, last[holder] == nil {
                    throw UniqueIndexViolation.error(
                        entityName: entityName, key: entry.key, index: layout.indexes[index], existingKey: holder)
                }
            }
        }
    }

    // MARK: - Queries

    /// What a query gets from the table under the lock.
    package enum Selection<Answer> {
        /// The answer: the records filtered, ordered and paged, or their number.
        case answer(Answer)
        /// A superset to evaluate outside the lock (the query reads fields the records do not
        /// carry, so evaluating means running the entities' `encode(to:)`), in no order.
        case candidates([Selected])
    }

    /// Selects what `query` asks for, through an index where one applies (built first, if the
    /// table was loaded without it).
    package mutating func select(_ query: StorageQuery) -> Selection<[Selected]> {
        let access = access(for: query)
        guard let evaluator = access.evaluator else { return .candidates(candidates(access.plan)) }
        if let plan = access.plan, plan.yieldsSortOrder {
            // The walk is in the query's order: skip the offset, stop at the limit.
            var result: [Selected] = []
            var skipped = 0
            let limit = query.limit ?? .max
            if limit == 0 { return .answer([]) }
            walk(plan, reversed: plan.reversed) { entry in
                guard entry.withRecord({ $0.withIndexValues { evaluator.matches($0) } }) else { return true }
                if skipped < query.offset {
                    skipped += 1
                    return true
                }
                result.append(Selected(entry.record))
                return result.count < limit
            }
            return .answer(result)
        }
        var result: [InMemoryRecord] = []
        forEachInRange(access.plan) { record in
            if record.withIndexValues({ evaluator.matches($0) }) { result.append(record) }
        }
        if !query.sort.isEmpty {
            result.sort { lhs, rhs in
                lhs.withIndexValues { left in rhs.withIndexValues { right in evaluator.precedes(left, right) } }
            }
        }
        return .answer(result[evaluator.page(ofCount: result.count)].map(Selected.init))
    }

    /// How many records `filter` holds for, counted through an index where one applies (built
    /// first, if the table was loaded without it), without collecting them.
    package mutating func count(matching filter: StorageFilter) -> Selection<Int> {
        let access = access(for: StorageQuery(filter: filter))
        guard let evaluator = access.evaluator else { return .candidates(candidates(access.plan)) }
        if let plan = access.plan, access.isDecidedByIndex {
            // Every entry in the range matches: count them, no record read.
            return .answer(ranges(of: plan).count(in: trees[plan.index]!))
        }
        var count = 0
        forEachInRange(access.plan) { record in
            if record.withIndexValues({ evaluator.matches($0) }) { count += 1 }
        }
        return .answer(count)
    }

    /// How the table answers `query` (a count of its filter when `counting`): the index it walks,
    /// built first if it is not yet, or a scan.
    package mutating func explain(_ query: StorageQuery, counting: Bool) -> StorageAccess {
        let access = access(for: query)
        guard let plan = access.plan else { return StorageAccess(scansEveryRecord: true) }
        return StorageAccess(
            index: layout.indexes[plan.index], scansEveryRecord: false,
            countsIndexEntries: counting && access.evaluator != nil && access.isDecidedByIndex)
    }

    /// How a query reads the table: the index range to walk, if one narrows or orders it, and,
    /// when the records carry every field the query reads, the evaluator of the query on their
    /// indexed values.
    private struct Access {
        let plan: IndexPlan?
        /// Evaluates the query without the conditions every record in the plan's range meets: on
        /// the screen query's range of one dialog, `dialogID == x` is not checked again.
        let evaluator: QueryEvaluator?
        /// Whether the plan's range meets every condition: then every entry in it matches.
        var isDecidedByIndex = false
    }

    private mutating func access(for query: StorageQuery) -> Access {
        let conjuncts = Self.conjuncts(of: query.filter)
        let plan = layout.indexes.isEmpty ? nil : IndexPlan.best(for: query, conjuncts: conjuncts, layout: layout)
        if let plan { buildIndex(plan.index) }
        guard layout.carries(query.fields) else { return Access(plan: plan, evaluator: nil) }
        var residual = query
        var decided = false
        if let plan {
            let unmet = conjuncts.filter { !plan.guarantees($0, in: layout) }
            if unmet.count < conjuncts.count { residual.filter = Self.conjunction(of: unmet) }
            decided = unmet.isEmpty
        }
        // It reads the records' values, whether or not an index is walked.
        return Access(plan: plan, evaluator: QueryEvaluator(residual, fields: layout.fields), isDecidedByIndex: decided)
    }

    /// Every record in `plan`'s range (every record without a plan), in no particular order: a
    /// superset of what the query selects, for evaluating outside the lock.
    private func candidates(_ plan: IndexPlan?) -> [Selected] {
        var found: [Selected] = []
        forEachInRange(plan) { found.append(Selected($0)) }
        return found
    }

    /// Calls `body` with every record in `plan`'s range, or every record without a plan.
    private func forEachInRange(_ plan: IndexPlan?, _ body: (InMemoryRecord) -> Void) {
        guard let plan else {
            for record in records.values { body(record) }
            return
        }
        walk(plan, reversed: false) { entry in
            entry.withRecord(body)
            return true
        }
    }

    /// Evaluates `query` on `candidates` outside the lock, reading the fields it needs from the
    /// snapshots (which never change once stored): what a ``Selection/candidates`` needs.
    /// - Throws: ``StorageError`` of kind ``StorageError/Kind/encodingFailed`` naming an entity
    ///   whose fields cannot be read.
    static func evaluate<E: Storable>(_ candidates: [Selected], _ type: E.Type, query: StorageQuery) throws
        -> [Selected]
    {
        let evaluator = QueryEvaluator(query)
        return try evaluator.select(candidates) { record in
            do {
                return try evaluator.extractor.values(of: record.snapshot)
            } catch {
                throw StorageError(.encodingFailed, entityName: E.entityName, key: record.key, underlyingError: error)
            }
        }
    }

    /// A copy of a stored snapshot as `E`, made with `copier`, so that the caller can change it
    /// without changing what is stored.
    /// - Throws: ``StorageError`` of kind ``StorageError/Kind/decodingFailed`` naming the entity.
    package static func copy<E: Storable>(
        _ snapshot: any Storable, as type: E.Type, key: String, with copier: EntityMapper
    ) throws -> E {
        do {
            if let typed = snapshot as? E {
                return try copier.map(typed, to: E.self)
            }
            // Another type saved under the same entity name: read it the way a serializing context
            // would, field by field.
            return try copier.map(snapshot, to: E.self)
        } catch {
            throw StorageError(.decodingFailed, entityName: E.entityName, key: key, underlyingError: error)
        }
    }

    /// Calls `body` with the entries in `plan`'s range, in index order (or reversed), until it
    /// returns `false`.
    private func walk(_ plan: IndexPlan, reversed: Bool, _ body: (IndexEntry) -> Bool) {
        let tree = trees[plan.index]!  // built by `access(for:)`, which made the plan
        let ranges = ranges(of: plan)
        var going = true
        for step in 0..<2 where going {
            guard let range = ranges[reversed ? 1 - step : step] else { continue }
            tree.forEach(from: range.start, to: range.end, reversed: reversed) { entry in
                going = body(entry)
                return going
            }
        }
    }

    /// The ranges of positions `plan` walks, in index order: one, or two around the entries it
    /// skips (``IndexPlan/excluded``). A value, not an array: every indexed query asks for it.
    private func ranges(of plan: IndexPlan) -> WalkedRanges {
        let tree = trees[plan.index]!  // built by `access(for:)`, which made the plan
        let start = tree.position { plan.isBelowRange($0) }
        let end = max(start, tree.position { !plan.isAboveRange($0) })
        guard plan.excluded != nil else { return WalkedRanges(first: (start, end), second: nil) }
        let skipStart = min(max(start, tree.position { plan.isBelowExcluded($0) }), end)
        let skipEnd = min(max(skipStart, tree.position { !plan.isAboveExcluded($0) }), end)
        return WalkedRanges(first: (start, skipStart), second: (skipEnd, end))
    }

    /// One or two ranges of index positions, in index order (see ``ranges(of:)``).
    private struct WalkedRanges {
        typealias Range = (start: SortedChunks<IndexEntry>.Position, end: SortedChunks<IndexEntry>.Position)
        let first: Range
        let second: Range?

        subscript(part: Int) -> Range? { part == 0 ? first : second }

        /// How many entries of `tree` the ranges hold.
        func count(in tree: SortedChunks<IndexEntry>) -> Int {
            tree.count(from: first.start, to: first.end) + (second.map { tree.count(from: $0.start, to: $0.end) } ?? 0)
        }
    }

    /// The filter that holds when all of `filters` do; `nil` (no filter) for none.
    private static func conjunction(of filters: [StorageFilter]) -> StorageFilter? {
        switch filters.count {
        case 0: return nil
        case 1: return filters[0]
        default: return .and(filters)
        }
    }

    /// The top-level `&&` operands of a filter.
    static func conjuncts(of filter: StorageFilter?) -> [StorageFilter] {
        switch filter {
        case nil: return []
        case .and(let filters)?: return filters.flatMap { conjuncts(of: $0) }
        case let filter?: return [filter]
        }
    }
}

/// A record as a query selected it, safe to use outside the lock.
package struct Selected {
    let record: InMemoryRecord
    package let snapshot: any Storable
    let revision: UInt64
    package var key: String { record.key }

    init(_ record: InMemoryRecord) {
        self.record = record
        snapshot = record.snapshot
        revision = record.revision
    }
}

/// The indexes an entity type declares, and the union of their fields, which every record carries
/// the values of.
package struct IndexLayout: Sendable, Equatable {
    let indexes: [StorageIndex]
    /// Every indexed field, each once.
    let fields: [FieldPath]
    /// For each index, the positions of its fields in ``fields``; `nil` where they are the first
    /// of ``fields``, in order, and the index's entries share the record's values.
    private let positions: [[Int]?]
    /// Reads ``fields`` from an entity: from its stored properties where that is proven exact.
    let reader: EntityFieldReader

    static let none = IndexLayout(indexes: [])

    init(indexes: [StorageIndex]) {
        self.indexes = indexes
        var fields: [FieldPath] = []
        for index in indexes {
            for field in index.fields where !fields.contains(field) { fields.append(field) }
        }
        self.fields = fields
        positions = indexes.map { index in
            index.fields == Array(fields.prefix(index.fields.count))
                ? nil : index.fields.map { fields.firstIndex(of: $0)! }
        }
        reader = EntityFieldReader(fields: fields)
        hasUniqueIndex = indexes.contains(where: \.isUnique)
    }

    /// Whether one of ``indexes`` is unique.
    let hasUniqueIndex: Bool

    /// The values of index `index`'s fields within `values` (the values of ``fields``), as its
    /// uniqueness compares them; `nil` when one has no unique value.
    func uniqueTuple(_ values: [StorageValue], in index: Int) -> [UniqueScalar]? {
        let count = indexes[index].fields.count
        guard let positions = positions[index] else { return UniqueScalar.tuple(values.prefix(count)) }
        return UniqueScalar.tuple(positions.lazy.map { values[$0] })
    }

    /// Whether the layouts keep the same indexes. Every write compares its type's layout with the
    /// table's, which are usually the one ``of(_:)`` made for the type, sharing its arrays: that is
    /// answered without comparing field names.
    package static func == (lhs: IndexLayout, rhs: IndexLayout) -> Bool {
        let shared = lhs.indexes.withUnsafeBufferPointer { left in
            rhs.indexes.withUnsafeBufferPointer { right in
                left.baseAddress == right.baseAddress && left.count == right.count
            }
        }
        return shared || lhs.indexes == rhs.indexes
    }

    /// The layout of `E`, worked out once per type.
    package static func of<E: Storable>(_ type: E.Type) -> IndexLayout {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        let layout = IndexLayout(indexes: E.indexes)
        cache.withLock { $0[id] = layout }
        return layout
    }

    /// Sound as `Sendable`: layouts are immutable values, only touched under the lock.
    private static let cache = Locked<[ObjectIdentifier: IndexLayout]>([:])

    /// The values of ``fields`` in `entity`, which a record of it carries.
    /// - Throws: what `entity`'s `encode(to:)` throws, where it is called.
    package func values(of entity: some Codable) throws -> [StorageValue] {
        fields.isEmpty ? [] : try reader.values(of: entity)
    }

    /// Whether records carry the value of every one of `queryFields`.
    func carries(_ queryFields: [FieldPath]) -> Bool {
        queryFields.allSatisfy(fields.contains)
    }

    /// The entry `record` has in index `index`, which for an index of the first of ``fields``
    /// shares the record's values rather than copying them.
    func entry(of record: InMemoryRecord, in index: Int) -> IndexEntry {
        IndexEntry(record: record, fields: positions[index], count: indexes[index].fields.count)
    }

    /// What finds the entry `record` has in index `index` when it carries `values` (in ``fields``
    /// order), without the copy of the index's fields that ``entry(of:in:)`` may make.
    func target(_ values: UnsafeBufferPointer<StorageValue>, of record: InMemoryRecord, in index: Int)
        -> IndexEntry.Target
    {
        IndexEntry.Target(values: values, fields: positions[index], count: indexes[index].fields.count, record: record)
    }

    /// Where index `index` finds its fields in ``fields`` (`nil`: they are the first ones), for
    /// ``IndexEntry``.
    func positions(in index: Int) -> [Int]? {
        positions[index]
    }
}

extension InMemoryTable.Selection<[Selected]> {
    /// The records `query` selects: the answer as it is, or the candidates evaluated outside the
    /// lock (``InMemoryTable/evaluate(_:_:query:)``).
    /// - Throws: as ``InMemoryTable/evaluate(_:_:query:)``.
    package func records<E: Storable>(_ type: E.Type, query: StorageQuery) throws -> [Selected] {
        switch self {
        case .answer(let records): return records
        case .candidates(let candidates): return try InMemoryTable.evaluate(candidates, E.self, query: query)
        }
    }
}

extension InMemoryTable.Selection<Int> {
    /// How many records `filter` holds for: the answer as it is, or the candidates evaluated
    /// outside the lock.
    /// - Throws: as ``InMemoryTable/evaluate(_:_:query:)``.
    package func count<E: Storable>(_ type: E.Type, filter: StorageFilter) throws -> Int {
        switch self {
        case .answer(let count): return count
        case .candidates(let candidates):
            return try InMemoryTable.evaluate(candidates, E.self, query: StorageQuery(filter: filter)).count
        }
    }
}
