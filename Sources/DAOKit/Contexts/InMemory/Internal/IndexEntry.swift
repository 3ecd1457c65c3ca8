import Foundation

/// One entity in an in-memory index: the record, ordered by the values of the index's fields
/// (``IndexOrder``) and then by the record's order, which no two records share, so that no two
/// entries are equal.
///
/// An entry is ordered by its index's fields alone. A walk evaluates a query on the record's
/// values (``InMemoryRecord/withIndexValues(_:)``), so a write that changes only fields an index
/// is not ordered by leaves that index untouched: flipping a message's read state moves it in an
/// `isRead` index and changes nothing in a `(dialogID, date)` one.
///
/// The values it is ordered by are the record's own for an index of the first of
/// ``IndexLayout/fields`` (read from the record, never copied), and a copy of them in the index's
/// order for any other. The first values and the record's order are also kept inline as
/// ``InlineIndexKeys``, which decide most comparisons of an index's binary searches without
/// reading the values or the record.
///
/// The record is held unretained (`Unmanaged`): copying an entry — which a walk does for every
/// entry it passes on — then neither retains the record nor touches its memory, and a walk reads
/// a record's values through ``withRecord(_:)`` without retaining it either. A retain is an atomic
/// write to the record; in a walk over records all over the heap each one would wait for that
/// record's cache miss, where plain loads of several records overlap. Sound because an
/// ``InMemoryTable`` owns every record in its `records` and keeps an entry in an index exactly
/// while the record is there (both change together under the context's lock), and entries never
/// leave the lock: what leaves it is a ``Selected``, which holds the record strongly.
struct IndexEntry: InPlaceComparable {
    /// The index's fields, copied in its order for an index not of the record's first fields;
    /// `nil` for one that is, whose entries read them from the record.
    private var copied: [StorageValue]?
    private let unmanagedRecord: Unmanaged<InMemoryRecord>
    private var keys: InlineIndexKeys

    /// The record (a retain, which a ``Selected`` needs: ``withRecord(_:)`` reads without one).
    var record: InMemoryRecord { unmanagedRecord.takeUnretainedValue() }

    /// Calls `body` with the record, not retained.
    @inline(__always)
    func withRecord<Result>(_ body: (InMemoryRecord) throws -> Result) rethrows -> Result {
        try unmanagedRecord._withUnsafeGuaranteedRef(body)
    }

    /// The entry of `record` in an index of `count` fields, found among its values at `positions`
    /// (`nil`: its first `count`).
    init(record: InMemoryRecord, fields positions: [Int]?, count: Int) {
        unmanagedRecord = .passUnretained(record)
        if let positions {
            let copied = record.withIndexValues { values in
                // Made at its final size in one allocation (`map` grows its result as it goes).
                [StorageValue](unsafeUninitializedCapacity: positions.count) { buffer, initialized in
                    for (slot, position) in positions.enumerated() {
                        (buffer.baseAddress! + slot).initialize(to: values[position])
                    }
                    initialized = positions.count
                }
            }
            self.copied = copied
            keys = copied.withUnsafeBufferPointer {
                InlineIndexKeys($0, reordered: nil, count: count, order: record.order)
            }
        } else {
            copied = nil
            keys = record.withIndexValues { InlineIndexKeys($0, reordered: nil, count: count, order: record.order) }
        }
    }

    /// The entry of `record` in an index of every one of its values, in their order.
    init(record: InMemoryRecord) {
        self.init(record: record, fields: nil, count: record.indexValueCount)
    }

    /// Makes the entry match its record's values, changed since it was made or reloaded; its
    /// index's fields are at `positions` (`nil`: the first ones). A copy of the fields is
    /// rewritten in place when the entry is its only holder: a persist that moves an entry then
    /// allocates nothing for it.
    mutating func reload(fields positions: [Int]?) {
        let count = Int(keys.count)
        let order = keys.order
        // A local: `withRecord` is a method of the entry this changes, and could not run while
        // `copied` is being written.
        let record = unmanagedRecord
        if let positions {
            record._withUnsafeGuaranteedRef { record in
                record.withIndexValues { values in
                    for (slot, position) in positions.enumerated() { copied![slot] = values[position] }
                }
            }
            keys = copied!.withUnsafeBufferPointer { InlineIndexKeys($0, reordered: nil, count: count, order: order) }
        } else {
            keys = withRecord { $0.withIndexValues { InlineIndexKeys($0, reordered: nil, count: count, order: order) } }
        }
    }

    /// How many values the entry is ordered by: its index's fields.
    var fieldCount: Int { Int(keys.count) }

    /// The value of the index's field at `slot` (below ``fieldCount``).
    func fieldValue(at slot: Int) -> StorageValue {
        withFieldValues { $0[slot] }
    }

    /// Calls `body` with the values the entry is ordered by (its first ``fieldCount``), where they lie.
    @inline(__always)
    private func withFieldValues<Result>(_ body: (UnsafeBufferPointer<StorageValue>) -> Result) -> Result {
        if let copied { return copied.withUnsafeBufferPointer(body) }
        return withRecord { $0.withIndexValues(body) }
    }

    /// Whether an index of `count` fields, found at `positions` (`nil`: the first ones), orders
    /// a record carrying `old` and one carrying `new` (both in the record's order) alike: then a
    /// write from one to the other need not touch the record's entry.
    static func fieldsAreEqual(
        _ old: UnsafeBufferPointer<StorageValue>, _ new: [StorageValue], fields positions: [Int]?, count: Int
    ) -> Bool {
        new.withUnsafeBufferPointer { new in
            for slot in 0..<count {
                let position = positions?[slot] ?? slot
                if IndexOrder.compare(old[position], new[position]) != .orderedSame { return false }
            }
            return true
        }
    }

    static func < (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        withUnsafePointer(to: lhs) { lhs in withUnsafePointer(to: rhs) { rhs in isBelow(lhs, rhs) } }
    }

    /// `<` reading the keys where the entries lie: only when they tie does it read their values.
    @inline(__always)
    static func isBelow(_ lhs: UnsafePointer<IndexEntry>, _ rhs: UnsafePointer<IndexEntry>) -> Bool {
        let (inlineOrder, equalPrefix) = InlineIndexKeys.compare(lhs.pointee.keys, rhs.pointee.keys)
        if inlineOrder != .orderedSame { return inlineOrder == .orderedAscending }
        return rhs.pointee.withFieldValues { values in
            precedes(lhs, values, fields: nil, keys: rhs.pointee.keys, from: equalPrefix)
        }
    }

    /// Whether the entry at `entry` comes before the one whose index fields are read from
    /// `values` at `positions` (`nil`: the first ones) and whose keys are `keys`, the two being
    /// equal in their first `equalPrefix` values.
    @inline(never)
    private static func precedes(
        _ entry: UnsafePointer<IndexEntry>, _ values: UnsafeBufferPointer<StorageValue>, fields positions: [Int]?,
        keys: InlineIndexKeys, from equalPrefix: Int
    ) -> Bool {
        let order = entry.pointee.withFieldValues { left in
            for slot in equalPrefix..<Int(keys.count) {
                let order = IndexOrder.compare(left[slot], values[positions?[slot] ?? slot])
                if order != .orderedSame { return order }
            }
            return .orderedSame
        }
        if order != .orderedSame { return order == .orderedAscending }
        return entry.pointee.keys.order < keys.order
    }

    /// The entry a record has in an index, to find it there (``SortedChunksTarget``): described
    /// by the record and the values it is ordered by, in the record's order, so that finding an
    /// entry whose index orders the fields otherwise makes no array of them.
    ///
    /// It reads `values` where they lie: a target lives only as long as the search it is made for,
    /// during which they do not change.
    struct Target: SortedChunksTarget {
        private let values: UnsafeBufferPointer<StorageValue>
        private let positions: [Int]?
        private let keys: InlineIndexKeys
        private let record: Unmanaged<InMemoryRecord>

        /// The entry `record` has when it carries `values`, in an index of `count` fields read at
        /// `positions` (`nil`: the first ones).
        init(values: UnsafeBufferPointer<StorageValue>, fields positions: [Int]?, count: Int, record: InMemoryRecord) {
            self.values = values
            self.positions = positions
            self.record = .passUnretained(record)
            keys = InlineIndexKeys(values, reordered: positions, count: count, order: record.order)
        }

        func comesAfter(_ entry: UnsafePointer<IndexEntry>) -> Bool {
            let (inlineOrder, equalPrefix) = InlineIndexKeys.compare(entry.pointee.keys, keys)
            if inlineOrder != .orderedSame { return inlineOrder == .orderedAscending }
            return IndexEntry.precedes(entry, values, fields: positions, keys: keys, from: equalPrefix)
        }

        /// An index holds one entry per record.
        func isTarget(_ entry: UnsafePointer<IndexEntry>) -> Bool {
            entry.pointee.unmanagedRecord.toOpaque() == record.toOpaque()
        }
    }

    static func == (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        lhs.unmanagedRecord.toOpaque() == rhs.unmanagedRecord.toOpaque()
    }
}

/// The total order indexes keep values in. Where ``StorageValue/compare(_:_:)`` orders two
/// values, it agrees with it (so `nil` comes first, and walking an index in order is sorting by
/// a ``StorageSortKey`` without a string comparator); values it cannot order get an order anyway —
/// by kind, `false` before `true`, `Data` and `URL` by bytes and text, `Double.nan` after every
/// other number and a NaN date after every other date — because an index needs one. Queries
/// never rely on that part: every entry an index walk yields is checked against the whole filter.
enum IndexOrder {
    /// The kinds indexes hold most — integers, dates, flags — compared in line, without copying
    /// the values; everything else by ``compareAnyKinds(_:_:)``.
    @inline(__always)
    static func compare(_ lhs: StorageValue, _ rhs: StorageValue) -> ComparisonResult {
        switch lhs {
        case .int(let a):
            if case .int(let b) = rhs {
                return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
            }
        case .date(let a):
            // A NaN date is neither less, equal nor greater: `compareAnyKinds` places it.
            if case .date(let b) = rhs, !a.timeIntervalSinceReferenceDate.isNaN, !b.timeIntervalSinceReferenceDate.isNaN
            {
                return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
            }
        case .bool(let a):
            if case .bool(let b) = rhs { return a == b ? .orderedSame : (a ? .orderedDescending : .orderedAscending) }
        default:
            break
        }
        return compareAnyKinds(lhs, rhs)
    }

    @inline(never)
    private static func compareAnyKinds(_ lhs: StorageValue, _ rhs: StorageValue) -> ComparisonResult {
        if let order = StorageValue.compare(lhs, rhs) { return order }
        switch (lhs, rhs) {
        case (.url(let a), .url(let b)): return order(a.absoluteString, b.absoluteString)
        case (.data(let a), .data(let b)):
            return a.lexicographicallyPrecedes(b)
                ? .orderedAscending : (b.lexicographicallyPrecedes(a) ? .orderedDescending : .orderedSame)
        default:
            let (left, right) = (nanAware(lhs), nanAware(rhs))
            if left != right { return left < right ? .orderedAscending : .orderedDescending }
            return .orderedSame  // NaN and NaN, or kinds of one rank that never meet in one field
        }
    }

    /// The rank of a value's kind; a NaN number ranks just after the numbers, a NaN date just
    /// after the dates.
    private static func nanAware(_ value: StorageValue) -> Double {
        if case .double(let d) = value, d.isNaN { return Double(value.kind) + 0.5 }
        if case .date(let d) = value, d.timeIntervalSinceReferenceDate.isNaN { return Double(value.kind) + 0.5 }
        switch value {
        case .int, .uint, .double: return 3  // numbers compare with each other; one rank
        default: return Double(value.kind)
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (b < a ? .orderedDescending : .orderedSame)
    }
}

extension StorageValue {
    /// Whether ``IndexOrder`` finds a value the same as this one exactly when
    /// ``StorageValue/equal(_:_:)`` does, so that an index range held to this value holds only
    /// values equal to it. Not for NaN (`==` equals no NaN, the index needs NaNs somewhere),
    /// `Decimal` (whose NaN is the same) and `URL` (the index orders by text, `==` compares more).
    var indexEqualityIsExact: Bool {
        switch self {
        case .null, .bool, .int, .uint, .string, .uuid, .data: return true
        case .double(let value): return !value.isNaN
        case .date(let value): return !value.timeIntervalSinceReferenceDate.isNaN
        case .url, .decimal: return false
        }
    }
}
