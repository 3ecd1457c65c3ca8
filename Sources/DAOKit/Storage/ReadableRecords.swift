/// What a read that skips unreadable records found: the values that could be read, and beside
/// them every record that could not, with its key and error.
///
/// Returned by ``StorageContext/fetchReadable(_:)`` and ``BaseDao/readReadable()-126b0``, so that one
/// record written by a newer version of the app (an enum case this version does not have, a field
/// it cannot decode) does not hold every other record of its type hostage.
public struct ReadableRecords<Element, ID: StorageKey> {
    /// Every record that could be read, in the order of the context's listing.
    public var values: [Element]
    /// Every record that could not be read, one per record.
    public var failures: [UnreadableRecord<ID>]

    /// Creates a result from its parts.
    public init(values: [Element], failures: [UnreadableRecord<ID>]) {
        self.values = values
        self.failures = failures
    }

    /// Whether every stored record was read.
    public var isComplete: Bool { failures.isEmpty }

    /// Every value, when every record was read: what a context's `fetchAll` returns, built on its
    /// `fetchReadable`.
    /// - Parameters:
    ///   - entityName: the entity the records belong to, named by the combined error.
    ///   - location: where the records are stored (a file, a database), or `nil`.
    /// - Throws: when a record could not be read: for one, that record's ``StorageError``; for
    ///   several, one ``StorageError`` of their kind whose ``StorageError/underlyingError`` is
    ///   ``RecordFailures``, listing each.
    public func valuesIfComplete(entityName: String, location: String?) throws -> [Element] {
        try StorageError.throwIfAny(failures.map(\.error), entityName: entityName, location: location)
        return values
    }
}

extension ReadableRecords: Sendable where Element: Sendable {}

/// One record that could not be read: which one, and why.
public struct UnreadableRecord<ID: StorageKey>: Sendable, CustomStringConvertible {
    /// The record's ``StorageKey/storageKey``; `nil` when the context cannot tell even that (a
    /// file under a hashed name whose envelope is damaged: ``StorageError/location`` names it).
    public let storageKey: String?
    /// Why it could not be read: ``StorageError/Kind/decodingFailed`` for a record that parses
    /// but does not decode as the entity, ``StorageError/Kind/corruptRecord(_:)``,
    /// ``StorageError/Kind/io(_:)``. It names the entity, the key and the location.
    public let error: StorageError

    /// Creates a failure for the record under `storageKey`.
    public init(storageKey: String?, error: StorageError) {
        self.storageKey = storageKey
        self.error = error
    }

    /// The record's id, or `nil` when its key is unknown or does not spell an `ID`; pass it to
    /// ``StorageContext/delete(_:ids:)`` or ``BaseDao/erase(id:)-2prvj`` to remove the record.
    public var id: ID? { storageKey.flatMap(ID.init(storageKey:)) }

    /// The error's description: one line naming the entity, key, reason and location.
    public var description: String { error.description }
}
