/// A ``TransactionalStorageContext`` that knows which version of its entity (``EntitySchema``)
/// wrote each record, so that ``BaseDao/migrate(progress:)-4r1a4`` can rewrite the older ones at the
/// current version, all in one transaction.
///
/// The key-value, file and SQLite contexts conform, and so does the in-memory context, which
/// keeps values and so never holds an older record.
public protocol VersionedStorageContext: TransactionalStorageContext {
    /// The records of `type` that a version older than `type.schema.version` wrote (a record
    /// that carries no version is version 1), read as the current entity, and a failure for each
    /// that does not read — or whose version cannot be read. Records of the current version, or
    /// of a newer one, are left out. Through a transaction's handle, it sees the transaction's
    /// writes.
    /// - Throws: ``StorageError`` when the records cannot be listed at all (an I/O failure), or
    ///   ``StorageError/Code/invalidSchema`` for a schema that cannot be right.
    func fetchOlderRecords<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID>
}

/// How far ``BaseDao/migrate(progress:)-4r1a4`` is: records rewritten of those to rewrite.
public struct MigrationProgress: Sendable, Equatable, CustomStringConvertible {
    /// The records rewritten so far.
    public let done: Int
    /// The records older than the current version, all of which the migration rewrites.
    public let total: Int

    /// Progress of `done` records out of `total`.
    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }

    /// `done` over `total`, from 0 to 1; 1 when there is nothing to do.
    public var fraction: Double { total == 0 ? 1 : Double(done) / Double(total) }

    /// "120 of 1000 records".
    public var description: String { "\(done) of \(total) records" }
}
