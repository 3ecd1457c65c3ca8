import Foundation

/// One entity in an in-memory index: the values of the index's fields (then of the type's other
/// indexed fields, ``IndexLayout/entryFields``) and the record, ordered value by value
/// (``IndexOrder``) and then by the record's order, which no two records share, so that no two
/// entries are equal.
///
/// The first values are also kept inline as ``InlineIndexKeys``, which decide most comparisons of
/// an index's binary searches without reading `values` (a heap array of its own).
///
/// The record is held `unowned(unsafe)`: copying an entry — which a walk does for every entry it
/// passes on — then neither retains the record nor touches its memory, and a walk that only reads
/// values (a count) never reaches the records, which lie all over the heap. Sound because an
/// ``InMemoryTable`` owns every record in its `records` and keeps an entry in an index exactly
/// while the record is there (both change together under the context's lock), and entries never
/// leave the lock: what leaves it is a ``Selected``, which holds the record strongly.
struct IndexEntry: InPlaceComparable {
    private(set) var values: [StorageValue]
    unowned(unsafe) let record: InMemoryRecord
    private var keys: InlineIndexKeys

    init(values: [StorageValue], record: InMemoryRecord) {
        self.values = values
        self.record = record
        keys = InlineIndexKeys(values)
    }

    /// The entry of `record` carrying `values` (in the record's order), read in the index's order
    /// through `positions` (`nil`: the same order, and the entry then shares the array).
    init(values: [StorageValue], reordered positions: [Int]?, record: InMemoryRecord) {
        guard let positions else {
            self.init(values: values, record: record)
            return
        }
        // Made at its final size in one allocation (`map` grows its result as it goes).
        let reordered = [StorageValue](unsafeUninitializedCapacity: positions.count) { buffer, initialized in
            for (slot, position) in positions.enumerated() { (buffer.baseAddress! + slot).initialize(to: values[position]) }
            initialized = positions.count
        }
        self.init(values: reordered, record: record)
    }

    /// Makes the entry carry `values` (in the record's order), read in the index's order through
    /// `positions` (`nil`: the same order, and the entry then shares the array). Reordered values
    /// are written into the entry's own array, which is changed in place when the entry is its
    /// only holder: a persist that moves an entry then allocates nothing for it.
    mutating func reload(_ values: [StorageValue], reordered positions: [Int]?) {
        if let positions {
            for (slot, position) in positions.enumerated() { self.values[slot] = values[position] }
        } else {
            self.values = values
        }
        keys = InlineIndexKeys(self.values)
    }

    static func < (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        let (inlineOrder, equalPrefix) = InlineIndexKeys.compare(lhs.keys, rhs.keys)
        if inlineOrder != .orderedSame { return inlineOrder == .orderedAscending }
        return precedes(lhs, rhs, from: equalPrefix)
    }

    /// `<` reading the keys where the entries lie: only when they tie does it read their values.
    @inline(__always)
    static func isBelow(_ lhs: UnsafePointer<IndexEntry>, _ rhs: UnsafePointer<IndexEntry>) -> Bool {
        let (inlineOrder, equalPrefix) = InlineIndexKeys.compare(lhs.pointee.keys, rhs.pointee.keys)
        if inlineOrder != .orderedSame { return inlineOrder == .orderedAscending }
        return precedes(lhs.pointee, rhs.pointee, from: equalPrefix)
    }

    /// Whether `lhs` comes before `rhs`, which are equal in their first `equalPrefix` values.
    @inline(never)
    private static func precedes(_ lhs: IndexEntry, _ rhs: IndexEntry, from equalPrefix: Int) -> Bool {
        precedes(lhs, rhs.values, reordered: nil, record: rhs.record, from: equalPrefix)
    }

    /// Whether `entry` comes before the entry of `record` whose values are `values`, read in the
    /// index's order through `positions` (`nil`: already in it), the two being equal in their
    /// first `equalPrefix` values.
    @inline(never)
    private static func precedes(_ entry: IndexEntry, _ values: [StorageValue], reordered positions: [Int]?, record: InMemoryRecord,
                                 from equalPrefix: Int) -> Bool {
        // Read the values in place rather than copying each out of its array.
        let order = entry.values.withUnsafeBufferPointer { left in
            values.withUnsafeBufferPointer { right in
                for position in equalPrefix..<left.count {
                    let order = IndexOrder.compare(left[position], right[positions?[position] ?? position])
                    if order != .orderedSame { return order }
                }
                return .orderedSame
            }
        }
        if order != .orderedSame { return order == .orderedAscending }
        return entry.record.order < record.order
    }

    /// The entry a record has in an index, to find it there (``SortedChunksTarget``):
    /// described by the record and its values in the record's order (``InMemoryRecord/indexValues``),
    /// so that finding an entry whose index orders the fields otherwise makes no array of them.
    struct Target: SortedChunksTarget {
        private let values: [StorageValue]
        private let positions: [Int]?
        private let keys: InlineIndexKeys
        private unowned(unsafe) let record: InMemoryRecord

        /// The entry `record` has when it carries `values`, read in the index's order through
        /// `positions` (`nil` when the index orders them as the record does).
        init(values: [StorageValue], reordered positions: [Int]?, record: InMemoryRecord) {
            self.values = values
            self.positions = positions
            self.record = record
            keys = InlineIndexKeys(values, reordered: positions)
        }

        func comesAfter(_ entry: UnsafePointer<IndexEntry>) -> Bool {
            let (inlineOrder, equalPrefix) = InlineIndexKeys.compare(entry.pointee.keys, keys)
            if inlineOrder != .orderedSame { return inlineOrder == .orderedAscending }
            return IndexEntry.precedes(entry.pointee, values, reordered: positions, record: record, from: equalPrefix)
        }

        /// An index holds one entry per record.
        func isTarget(_ entry: UnsafePointer<IndexEntry>) -> Bool {
            entry.pointee.record === record
        }
    }

    static func == (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        lhs.record === rhs.record
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
        case let .int(a):
            if case let .int(b) = rhs { return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending) }
        case let .date(a):
            // A NaN date is neither less, equal nor greater: `compareAnyKinds` places it.
            if case let .date(b) = rhs, !a.timeIntervalSinceReferenceDate.isNaN, !b.timeIntervalSinceReferenceDate.isNaN {
                return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
            }
        case let .bool(a):
            if case let .bool(b) = rhs { return a == b ? .orderedSame : (a ? .orderedDescending : .orderedAscending) }
        default:
            break
        }
        return compareAnyKinds(lhs, rhs)
    }

    @inline(never)
    private static func compareAnyKinds(_ lhs: StorageValue, _ rhs: StorageValue) -> ComparisonResult {
        if let order = StorageValue.compare(lhs, rhs) { return order }
        switch (lhs, rhs) {
        case let (.url(a), .url(b)): return order(a.absoluteString, b.absoluteString)
        case let (.data(a), .data(b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : (b.lexicographicallyPrecedes(a) ? .orderedDescending : .orderedSame)
        default:
            let (left, right) = (nanAware(lhs), nanAware(rhs))
            if left != right { return left < right ? .orderedAscending : .orderedDescending }
            return .orderedSame  // NaN and NaN, or kinds of one rank that never meet in one field
        }
    }

    /// The rank of a value's kind; a NaN number ranks just after the numbers, a NaN date just
    /// after the dates.
    private static func nanAware(_ value: StorageValue) -> Double {
        if case let .double(d) = value, d.isNaN { return Double(value.kind) + 0.5 }
        if case let .date(d) = value, d.timeIntervalSinceReferenceDate.isNaN { return Double(value.kind) + 0.5 }
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
        case let .double(value): return !value.isNaN
        case let .date(value): return !value.timeIntervalSinceReferenceDate.isNaN
        case .url, .decimal: return false
        }
    }
}
