import DAOKit
import Foundation

/// Reading back, replacing, deleting, and the id rules of `create`, `update` and save modes.
extension ContractChecks {
    static let basics: [ContractCheck] = [
        ContractCheck("savedEntitiesReadBack") { context in
            let notes = (0..<5).map { FixtureNoteEntity(id: "note-\($0)", body: "body \($0)") }
            try context.save(notes)
            try Expect.equal(try context.count(FixtureNoteEntity.self), 5, "count after saving 5")
            for note in notes {
                try Expect.equal(try context.fetch(FixtureNoteEntity.self, id: note.id), note, "fetch(\(note.id))")
            }
            try Expect.equal(try context.fetchAll(FixtureNoteEntity.self).sorted(by: byID), notes, "fetchAll")
        },
        ContractCheck("unknownIDsFetchNilAndCountZero") { context in
            try Expect.equal(try context.fetch(FixtureNoteEntity.self, id: "missing"), nil, "fetch of an unknown id")
            try Expect.equal(try context.fetchAll(FixtureNoteEntity.self), [], "fetchAll of an empty context")
            try Expect.equal(try context.count(FixtureNoteEntity.self), 0, "count of an empty context")
        },
        ContractCheck("saveReplacesTheEntityWithTheSameID") { context in
            try context.save([FixtureNoteEntity(id: "a", body: "old"), FixtureNoteEntity(id: "b", body: "other")])
            try context.save([FixtureNoteEntity(id: "a", body: "new")])
            try Expect.equal(try context.fetch(FixtureNoteEntity.self, id: "a")?.body, "new", "body after replacing")
            try Expect.equal(try context.count(FixtureNoteEntity.self), 2, "count after replacing")
        },
        ContractCheck("aBatchWithARepeatedIDKeepsTheLast") { context in
            try context.save([FixtureNoteEntity(id: "a", body: "first"), FixtureNoteEntity(id: "a", body: "last")])
            try Expect.equal(try context.fetch(FixtureNoteEntity.self, id: "a")?.body, "last", "body")
            try Expect.equal(try context.count(FixtureNoteEntity.self), 1, "count")
        },
        ContractCheck("emptyBatchesChangeNothing") { context in
            try context.save([FixtureNoteEntity(id: "a", body: "kept")])
            try context.save([FixtureNoteEntity]())
            try context.delete(FixtureNoteEntity.self, ids: [])
            try Expect.equal(
                try context.fetchAll(FixtureNoteEntity.self), [FixtureNoteEntity(id: "a", body: "kept")],
                "fetchAll after empty save and delete")
        },
        ContractCheck("deleteRemovesTheGivenIDsAndIgnoresUnknownOnes") { context in
            try context.save((0..<4).map { FixtureNoteEntity(id: "\($0)", body: "") })
            try context.delete(FixtureNoteEntity.self, ids: ["1", "3", "unknown"])
            try Expect.equal(try context.fetchAll(FixtureNoteEntity.self).map(\.id).sorted(), ["0", "2"], "ids left")
            try Expect.equal(try context.fetch(FixtureNoteEntity.self, id: "1"), nil, "fetch of a deleted id")
            try context.delete(FixtureNoteEntity.self, ids: ["1"])
            try Expect.equal(try context.count(FixtureNoteEntity.self), 2, "count after deleting a deleted id")
        },
        ContractCheck("deleteAllRemovesOnlyThatType") { context in
            try context.save([FixtureNoteEntity(id: "a", body: ""), FixtureNoteEntity(id: "b", body: "")])
            try context.save([FixtureTagEntity(id: "a", label: "")])
            try context.deleteAll(FixtureNoteEntity.self)
            try Expect.equal(try context.count(FixtureNoteEntity.self), 0, "notes left")
            try Expect.equal(try context.fetchAll(FixtureNoteEntity.self), [], "notes fetched")
            try Expect.equal(try context.count(FixtureTagEntity.self), 1, "tags left")
            try context.save([FixtureNoteEntity(id: "a", body: "again")])
            try Expect.equal(
                try context.fetchAll(FixtureNoteEntity.self), [FixtureNoteEntity(id: "a", body: "again")],
                "notes saved after deleteAll")
        },
        ContractCheck("createOfAStoredIDFailsWithDuplicateIDAndChangesNothing") { context in
            let dao = BaseDao<FixtureMessage, FixtureMessageEntity>(context: context)
            let original = FixtureMessage(text: "original")
            try dao.create(original)
            var copy = original
            copy.text = "impostor"
            try Expect.storageError(
                .duplicateID, entityName: FixtureMessageEntity.entityName,
                key: original.id.storageKey, "create of a stored id"
            ) { try dao.create(copy) }
            try Expect.equal(try dao.read(id: original.id), original, "value after the failed create")
        },
        ContractCheck("updateOfAMissingIDFailsWithMissingIDAndStoresNothing") { context in
            let dao = BaseDao<FixtureMessage, FixtureMessageEntity>(context: context)
            let message = FixtureMessage(text: "never stored")
            try Expect.storageError(
                .missingID, entityName: FixtureMessageEntity.entityName,
                key: message.id.storageKey, "update of a missing id"
            ) { try dao.update(message) }
            try Expect.equal(try dao.count(), 0, "count after the failed update")
            try dao.create(message)
            var changed = message
            changed.isRead = true
            try dao.update(changed)
            try Expect.equal(try dao.read(id: message.id), changed, "value after a valid update")
        },
        ContractCheck("anInsertBatchWithOneStoredIDWritesNothing") { context in
            try context.save([FixtureCounterEntity(id: 2, value: 0)])
            let batch = (1...3).map { FixtureCounterEntity(id: $0, value: 9) }
            try Expect.storageError(
                .duplicateID, entityName: FixtureCounterEntity.entityName, key: "2",
                "insert batch with a stored id"
            ) { try context.save(batch, mode: .insert) }
            try Expect.equal(
                try context.fetchAll(FixtureCounterEntity.self), [FixtureCounterEntity(id: 2, value: 0)],
                "entities after the failed insert")
        },
        ContractCheck("anInsertBatchRepeatingAnIDWritesNothing") { context in
            let batch = [FixtureCounterEntity(id: 1, value: 1), FixtureCounterEntity(id: 1, value: 2)]
            try Expect.storageError(
                .duplicateID, entityName: FixtureCounterEntity.entityName, key: "1",
                "insert batch repeating an id"
            ) { try context.save(batch, mode: .insert) }
            try Expect.equal(try context.count(FixtureCounterEntity.self), 0, "count after the failed insert")
        },
        ContractCheck("anUpdateBatchWithOneMissingIDWritesNothing") { context in
            try context.save([FixtureCounterEntity(id: 1, value: 0), FixtureCounterEntity(id: 3, value: 0)])
            let batch = (1...3).map { FixtureCounterEntity(id: $0, value: 9) }
            try Expect.storageError(
                .missingID, entityName: FixtureCounterEntity.entityName, key: "2",
                "update batch with a missing id"
            ) { try context.save(batch, mode: .update) }
            try Expect.equal(
                try context.fetchAll(FixtureCounterEntity.self).sorted { $0.id < $1.id },
                [FixtureCounterEntity(id: 1, value: 0), FixtureCounterEntity(id: 3, value: 0)],
                "entities after the failed update")
            try context.save([FixtureCounterEntity(id: 1, value: 5)], mode: .update)
            try Expect.equal(
                try context.fetch(FixtureCounterEntity.self, id: 1)?.value, 5, "value after a valid update")
        },
    ]

    static func byID<T: Identifiable>(_ lhs: T, _ rhs: T) -> Bool where T.ID: Comparable {
        lhs.id < rhs.id
    }
}
