import Foundation

/// The first values of an ``IndexEntry`` as unsigned integers that order as ``IndexOrder``
/// orders the values, kept in the entry itself: most comparisons made while binary-searching an
/// index are then decided in the chunk the entry lies in, without reaching for its values, which
/// live in their own heap array (a cache miss per comparison in an index of 100,000 entries).
///
/// Only the kinds indexes hold most are kept this way — integers, dates, flags. A key that is not
/// (any other kind, a NaN date), or two keys of different kinds, stop the inline comparison, and
/// ``IndexEntry`` compares the values from that position on: the order is ``IndexOrder``'s either
/// way.
struct InlineIndexKeys {
    /// How many leading values are kept: an index's two fields (the screen query's
    /// `(dialogID, date)`); an index of more compares the others by their values.
    static let capacity = 2

    private var first: UInt64 = 0
    private var second: UInt64 = 0
    /// The record's ``InMemoryRecord/order``, which decides between entries whose values are all
    /// equal: kept here so that such a tie (in a `Bool` index, each entry ties with half the
    /// others) is decided without reaching for the record.
    let order: UInt64
    /// How many values the entry is ordered by: its index's fields.
    let count: Int32
    /// Two bits per key, the first key lowest: ``Kind`` raw values.
    private var kinds: UInt8 = 0

    /// The kind of a kept key; `none` for a value not kept, which compares by its value.
    private enum Kind: UInt8 {
        case none = 0
        case int, date, bool
    }

    /// The keys of the first `count` of `values` read in the order `positions` gives (`nil`:
    /// their own order), for the record whose order is `order`.
    init(_ values: UnsafeBufferPointer<StorageValue>, reordered positions: [Int]?, count: Int, order: UInt64) {
        self.order = order
        self.count = Int32(count)
        // Each value is read where it lies: copying one out would call the enum's outlined copy
        // and destroy (a switch over every kind) for a key that is a plain integer.
        for position in 0..<Swift.min(count, Self.capacity) {
            guard let (kind, key) = Self.key(of: values[positions?[position] ?? position]) else { break }
            if position == 0 { first = key } else { second = key }
            kinds |= kind.rawValue << (2 * position)
        }
    }

    /// `value` as a kind and an integer that orders values of that kind as ``IndexOrder`` does
    /// and is equal exactly when it finds them the same; `nil` for a value kept as itself.
    @inline(__always)
    private static func key(of value: StorageValue) -> (Kind, UInt64)? {
        switch value {
        case .int(let number):
            return (.int, UInt64(bitPattern: number) ^ (1 << 63))
        case .bool(let flag):
            return (.bool, flag ? 1 : 0)
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            if seconds.isNaN { return nil }
            // -0.0 and 0.0 are the same date; a negative number's bits order backwards.
            let bits = (seconds == 0 ? 0 : seconds).bitPattern
            return (.date, bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
        default:
            return nil
        }
    }

    /// How the entries `lhs` and `rhs` (of one index) compare on their kept keys: the order of the
    /// first pair that differs or, when every value is kept and equal, of their records; otherwise
    /// `.orderedSame` and how many leading values the keys showed equal (the values from that
    /// position on decide, then the records' order).
    @inline(__always)
    static func compare(_ lhs: InlineIndexKeys, _ rhs: InlineIndexKeys) -> (order: ComparisonResult, equalPrefix: Int) {
        // The usual case: the same kinds in the same positions, so every kept key compares (and
        // the unused ones are zero in both).
        guard lhs.kinds == rhs.kinds else { return compareMixedKinds(lhs, rhs) }
        if lhs.first != rhs.first { return (lhs.first < rhs.first ? .orderedAscending : .orderedDescending, 0) }
        if lhs.second != rhs.second { return (lhs.second < rhs.second ? .orderedAscending : .orderedDescending, 1) }
        let kept = lhs.keptCount
        guard kept == lhs.count, lhs.order != rhs.order else { return (.orderedSame, kept) }
        return (lhs.order < rhs.order ? .orderedAscending : .orderedDescending, kept)
    }

    /// How many leading values have a key: the kinds are kept from the first one on, without gaps.
    private var keptCount: Int {
        kinds & 0b11 == 0 ? 0 : kinds & 0b1100 == 0 ? 1 : 2
    }

    /// ``compare(_:_:)`` for entries whose keys differ in kind somewhere: a key decides only up to
    /// the first position where the two are not of one kind.
    @inline(never)
    private static func compareMixedKinds(_ lhs: InlineIndexKeys, _ rhs: InlineIndexKeys) -> (
        order: ComparisonResult, equalPrefix: Int
    ) {
        guard lhs.kinds & 0b11 != 0, lhs.kinds & 0b11 == rhs.kinds & 0b11 else { return (.orderedSame, 0) }
        if lhs.first != rhs.first { return (lhs.first < rhs.first ? .orderedAscending : .orderedDescending, 0) }
        // The second kinds differ (the kinds as a whole do): the values decide from there.
        return (.orderedSame, 1)
    }
}
