/// The transaction of ``BaseDao/migrate(progress:)-4r1a4``, on the context opened as its own versioned
/// type.
extension BaseDao {
    /// How many records a migration writes per save: each save reports progress after it.
    static var migrationChunk: Int { 1_000 }

    func migrateOlderRecords<C: VersionedStorageContext>(
        on context: C, progress: ((MigrationProgress) -> Void)?
    ) throws -> Int {
        try context.transaction { handle in
            let older = try handle.fetchOlderRecords(Entity.self)
            // Nothing is written while one older record does not read: the error names each.
            let records = try older.valuesIfComplete(entityName: Entity.entityName, location: nil)
            if records.isEmpty { return 0 }
            var done = 0
            progress?(MigrationProgress(done: 0, total: records.count))
            while done < records.count {
                let chunk = records[done..<min(done + Self.migrationChunk, records.count)]
                try handle.save(Array(chunk))
                done += chunk.count
                progress?(MigrationProgress(done: done, total: records.count))
            }
            return records.count
        }
    }
}
