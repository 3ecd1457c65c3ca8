/// The stored entity under one key: its snapshot, and the values of its type's indexed fields
/// (``IndexLayout/fields`` order) kept in the same allocation, after it.
///
/// A class, so that the table and every index share it, an index walk reaches it without a lookup
/// by key, and replacing the entity without changing an indexed field touches no index. Only
/// touched under the lock of a context whose table holds it, and changed only while a single
/// table holds it (a transaction's table shares records with its context's, see
/// ``InMemoryTable``); what leaves the lock is a ``Selected`` copy.
///
/// The values live in the record itself (a `ManagedBuffer`'s elements) rather than in an array of
/// their own: a walk that evaluates a query on the records it passes reaches each one's values in
/// one load instead of two (the record, then the array), which in an index of 100,000 records is
/// a cache miss saved per record counted; and a record is one allocation, not two.
///
/// Invariants: the record holds exactly ``Header/count`` initialized values, from its creation to
/// its `deinit`; they are replaced in place (``setIndexValues(_:)``), never resized. An index entry
/// may be ordered by them (``IndexEntry``), so a write replaces them only while no index holds an
/// entry ordered by values that change (``InMemoryTable`` takes those entries out first).
final class InMemoryRecord: ManagedBuffer<InMemoryRecord.Header, StorageValue> {
    struct Header {
        let key: String
        /// The immutable snapshot stored now; replaced (never mutated) when the entity is.
        var snapshot: any Storable
        /// Distinct for every key ever stored in the context: orders entries whose values are equal.
        let order: UInt64
        /// Changes whenever the snapshot is replaced: tells whether a record evaluated outside the
        /// lock still holds what was evaluated.
        var revision: UInt64
        /// How many index values follow the header.
        let count: Int
    }

    /// A record of `snapshot` under `key`, carrying a copy of `indexValues`.
    static func make(key: String, snapshot: any Storable, indexValues: [StorageValue], order: UInt64) -> InMemoryRecord
    {
        let buffer = create(minimumCapacity: indexValues.count) { _ in
            Header(key: key, snapshot: snapshot, order: order, revision: 0, count: indexValues.count)
        }
        // `create` makes an instance of the class it is called on.
        let record = unsafeDowncast(buffer, to: InMemoryRecord.self)
        record.withUnsafeMutablePointerToElements { elements in
            indexValues.withUnsafeBufferPointer { values in
                guard let source = values.baseAddress else { return }
                elements.initialize(from: source, count: values.count)
            }
        }
        return record
    }

    deinit {
        withUnsafeMutablePointers { header, elements in _ = elements.deinitialize(count: header.pointee.count) }
    }

    // `header` is reached through addressors: reading and writing these costs no exclusivity
    // check (every access is under the context's lock, so no two ever overlap).

    var key: String { header.key }

    var snapshot: any Storable {
        get { header.snapshot }
        set { header.snapshot = newValue }
    }

    var order: UInt64 { header.order }

    var revision: UInt64 {
        get { header.revision }
        set { header.revision = newValue }
    }

    /// How many index values the record carries.
    var indexValueCount: Int { header.count }

    /// Calls `body` with the index values where they lie.
    @inline(__always)
    func withIndexValues<Result>(_ body: (UnsafeBufferPointer<StorageValue>) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { header, elements in
            try body(UnsafeBufferPointer(start: elements, count: header.pointee.count))
        }
    }

    /// A copy of the index values.
    var indexValues: [StorageValue] {
        withIndexValues(Array.init)
    }

    /// Replaces the index values in place with `values`, which must be as many.
    func setIndexValues(_ values: [StorageValue]) {
        withUnsafeMutablePointers { header, elements in
            precondition(
                values.count == header.pointee.count, "DAOKit internal error: a record's index values change in number")
            values.withUnsafeBufferPointer { values in
                guard let source = values.baseAddress else { return }
                elements.update(from: source, count: values.count)
            }
        }
    }
}
