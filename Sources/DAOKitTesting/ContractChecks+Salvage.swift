import DAOKit

/// Reading past unreadable records, listing keys and deleting by key
/// (``StorageContext/fetchReadable(_:)``, ``StorageContext/storedKeys(_:)``,
/// ``StorageContext/delete(_:storageKeys:)``).
///
/// A context that relies on the protocol's defaults passes these checks too: where a default
/// cannot read past an undecodable record, the checks accept the error it throws instead, as long
/// as that error names the record.
extension ContractChecks {
    /// Tasks 1, 2 and 4 decode; task 3 holds a status this version does not know.
    static func plantTasks(in context: any StorageContext) throws {
        try context.save(
            [1, 2, 4].map { FixtureTaskEntity(id: $0, title: "task \($0)", status: $0 == 2 ? .done : .open) })
        try context.save([FixtureTaskRecord(id: 3, title: "from a newer version", status: "archived")])
    }

    static let salvage: [ContractCheck] = [
        ContractCheck("fetchReadableOfASoundStoreReadsEverythingAndReportsNoFailure") { context in
            let notes = (1...3).map { FixtureNoteEntity(id: "n\($0)", body: "body \($0)") }
            try context.save(notes)
            let found = try context.fetchReadable(FixtureNoteEntity.self)
            try Expect.equal(found.values.sorted { $0.id < $1.id }, notes, "values")
            try Expect.equal(found.failures.map(\.description), [], "failures")
            try Expect.equal(
                try context.fetchReadable(FixtureTagEntity.self).values, [], "values of a type never stored")
        },
        ContractCheck("storedKeysListsEveryStoredKeyOfTheTypeOnly") { context in
            let ids = ["a", "b/c", "é"]
            try context.save(ids.map { FixtureNoteEntity(id: $0, body: "") })
            try context.save([FixtureTagEntity(id: "tag", label: "")])
            try Expect.equal(Set(try context.storedKeys(FixtureNoteEntity.self)), Set(ids), "stored keys")
            try Expect.equal(
                try context.storedKeys(FixtureCounterEntity.self), [], "stored keys of a type never stored")
        },
        ContractCheck("deleteByStorageKeysRemovesThoseRecordsAndIgnoresUnknownKeys") { context in
            try context.save((1...3).map { FixtureCounterEntity(id: $0, value: $0) })
            try context.delete(FixtureCounterEntity.self, storageKeys: ["2", "99"])
            try Expect.equal(try context.fetchAll(FixtureCounterEntity.self).map(\.id).sorted(), [1, 3], "ids left")
        },
        ContractCheck("oneUndecodableRecordIsReportedBesideTheReadableOnes") { context in
            try plantTasks(in: context)
            let found: ReadableRecords<FixtureTaskEntity, Int>
            do {
                found = try context.fetchReadable(FixtureTaskEntity.self)
            } catch let error as StorageError {
                // The protocol's default cannot read past the record; it must at least name it.
                try Expect.equal(error.key, "3", "the key named by fetchReadable's error")
                return
            }
            try Expect.equal(found.values.map(\.id).sorted(), [1, 2, 4], "ids read")
            try Expect.equal(found.failures.map(\.storageKey), ["3"], "keys of the failures")
            try Expect.equal(found.failures.first?.id, 3, "id of the failure")
            try Expect.equal(found.failures.first?.error.kind, .decodingFailed, "kind of the failure")
            try Expect.equal(found.failures.first?.error.entityName, "FixtureTask", "entity named by the failure")
            try Expect.equal(found.failures.first?.error.key, "3", "key named by the failure's error")
        },
        ContractCheck("deletingAnUndecodableRecordByKeyUnblocksFetchAll") { context in
            try plantTasks(in: context)
            try Expect.failure("fetchAll with an undecodable record", matching: { $0 is StorageError }) {
                try context.fetchAll(FixtureTaskEntity.self)
            }
            try context.delete(FixtureTaskEntity.self, storageKeys: ["3"])
            try Expect.equal(
                try context.fetchAll(FixtureTaskEntity.self).map(\.id).sorted(), [1, 2, 4], "ids after deleting 3")
        },
    ]
}
