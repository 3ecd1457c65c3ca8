/// The in-memory context keeps values, not encoded records, so it never holds a record of an
/// older entity version: ``BaseDao/migrate(progress:)-4r1a4`` has nothing to do on it.
extension InMemoryStorageContext: VersionedStorageContext {
    /// No records: every value is held as the type that saved it.
    /// - Throws: ``StorageError/Code/invalidSchema`` for a schema that cannot be right, as the
    ///   other contexts do.
    public func fetchOlderRecords<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        _ = try EntityVersioning.of(E.self)
        return ReadableRecords(values: [], failures: [])
    }
}
