import DAOKit
import DAOKitInternals

/// What a ``VersionedStorageContext`` promises (see ``VersionedStorageContextContract``).
extension ContractChecks {
    static let versions: [ContractCheck] = [
        ContractCheck("olderRecordsReadAsTheCurrentEntity") { context in
            try context.save([FixtureVersionedTicketV1(id: 1, title: "a", note: "first", size: 3)])
            try context.save([FixtureVersionedTicketV2(id: 2, title: "b", note: "second", size: 2.5, points: 40)])
            let one = FixtureVersionedTicket(
                id: 1, title: "a", remark: "first", size: 3, points: FixtureVersionedTicket.defaultPoints)
            let two = FixtureVersionedTicket(id: 2, title: "b", remark: "second", size: 2.5, points: 40)
            try Expect.equal(try context.fetch(FixtureVersionedTicket.self, id: 1), one, "a version 1 record")
            try Expect.equal(try context.fetch(FixtureVersionedTicket.self, id: 2), two, "a version 2 record")
            try Expect.equal(
                try context.fetchAll(FixtureVersionedTicket.self).sorted { $0.id < $1.id }, [one, two], "every record")
            let readable = try context.fetchReadable(FixtureVersionedTicket.self)
            try Expect.that(readable.isComplete, "every record reads: \(readable.failures)")
        },
        ContractCheck("aNewerRecordIsUnreadableBesideTheOthers") { context in
            try context.save([FixtureVersionedTicketV1(id: 1, title: "a", note: "", size: 1)])
            try context.save([FixtureVersionedTicket(id: 3, title: "c", remark: "", size: 1, points: 1)])
            try Expect.storageError(
                .newerVersion("written by version 3; this build reads up to 2"), entityName: "VersionedTicket",
                key: "3", "version 2 reading what version 3 wrote"
            ) { try context.fetch(FixtureVersionedTicketV2.self, id: 3) }
            let readable = try context.fetchReadable(FixtureVersionedTicketV2.self)
            try Expect.equal(readable.values.map(\.id), [1], "the records version 2 reads")
            try Expect.equal(readable.failures.map(\.storageKey), ["3"], "the records it cannot")
            try Expect.equal(readable.failures.first?.error.code, .newerVersion, "why")
            try Expect.storageErrorKind(
                .newerVersion("written by version 3; this build reads up to 1"), "version 1 reading it"
            ) { try context.fetch(FixtureVersionedTicketV1.self, id: 3) }
        },
        ContractCheck("aSaveNeverReplacesANewerRecord") { context in
            let newer = FixtureVersionedTicket(id: 1, title: "newer", remark: "r", size: 0.5, points: 2)
            try context.save([newer])
            let refused = try Expect.storageErrorKind(
                .newerVersion("written by version 3; this build writes version 2 and does not replace it"),
                "version 2 saving over it in a batch"
            ) {
                try context.save([
                    FixtureVersionedTicketV2(id: 9, title: "fresh", note: "", size: 0, points: 0),
                    FixtureVersionedTicketV2(id: 1, title: "blind", note: "", size: 0, points: 0),
                ])
            }
            try Expect.equal(refused.key, "1", "the refused record")
            try Expect.equal(try context.fetch(FixtureVersionedTicket.self, id: 1), newer, "the newer record")
            try Expect.that(
                try context.fetch(FixtureVersionedTicketV2.self, id: 9) == nil, "the rest of the refused batch")
            try Expect.failure("version 1 updating it", matching: { ($0 as? StorageError)?.code == .newerVersion }) {
                try context.save([FixtureVersionedTicketV1(id: 1, title: "b", note: "", size: 0)], mode: .update)
            }
            try Expect.equal(try context.fetch(FixtureVersionedTicket.self, id: 1), newer, "the newer record")
            try context.delete(FixtureVersionedTicketV2.self, ids: [1])
            try Expect.that(try context.fetch(FixtureVersionedTicket.self, id: 1) == nil, "the record once deleted")
        },
        ContractCheck("aSaveKeepsTheFieldsItsVersionRemoved") { context in
            try context.save([FixtureKeptNoteV1(id: "a", title: "Draft", body: "kept\u{0}text 🎉")])
            try context.save([FixtureKeptNote(id: "a", title: "Renamed"), FixtureKeptNote(id: "b", title: "New")])
            try context.save([FixtureKeptNote(id: "a", title: "Final")])
            try Expect.equal(
                try context.fetch(FixtureKeptNote.self, id: "a"), FixtureKeptNote(id: "a", title: "Final"),
                "the note as version 2 reads it")
            try Expect.equal(
                try context.fetch(FixtureKeptNoteV1.self, id: "a"),
                FixtureKeptNoteV1(id: "a", title: "Final", body: "kept\u{0}text 🎉"),
                "the note as version 1, rolled back, reads it")
            // Version 2 made this one, which never had a body: version 1 says it cannot read it.
            try Expect.storageErrorKind(.decodingFailed, "version 1 reading a note version 2 made") {
                try context.fetch(FixtureKeptNoteV1.self, id: "b")
            }
        },
        ContractCheck("migrateRewritesEveryOlderRecordOnce") { context in
            try context.save((1...3).map { FixtureVersionedTicketV1(id: $0, title: "v1", note: "n\($0)", size: $0) })
            try context.save(
                (4...5).map { FixtureVersionedTicketV2(id: $0, title: "v2", note: "n\($0)", size: 0.5, points: $0) })
            try context.save([FixtureVersionedTicket(id: 6, title: "v3", remark: "r", size: 1, points: 6)])
            let versioned = try versionedContext(context)
            let before = try context.fetchAll(FixtureVersionedTicket.self).sorted { $0.id < $1.id }
            try Expect.equal(
                try versioned.fetchOlderRecords(FixtureVersionedTicket.self).values.map(\.id).sorted(),
                [1, 2, 3, 4, 5],
                "the older records")
            let reports = Locked<[MigrationProgress]>([])
            let tickets = BaseDao<FixtureVersionedTicket, FixtureVersionedTicket>(context: context)
            let migrated = try tickets.migrate { progress in reports.withLock { $0.append(progress) } }
            try Expect.equal(migrated, 5, "records migrate() rewrote")
            try Expect.equal(
                reports.withLock { $0 }, [MigrationProgress(done: 0, total: 5), MigrationProgress(done: 5, total: 5)],
                "the progress reported")
            try Expect.that(
                try versioned.fetchOlderRecords(FixtureVersionedTicket.self).values.isEmpty, "older records after it")
            try Expect.equal(try tickets.read().sorted { $0.id < $1.id }, before, "the records, as they read before")
            try Expect.equal(try tickets.migrate(), 0, "records a second migrate() rewrote")
            // Version 1, which the current version does not declare readable, reads them no more.
            try Expect.storageErrorKind(
                .newerVersion("written by version 3; this build reads up to 1"), "version 1 after the migration"
            ) { try context.fetch(FixtureVersionedTicketV1.self, id: 1) }
        },
        ContractCheck("migrateWritesNothingWhenOneRecordDoesNotResolve") { context in
            try context.save([
                FixtureMigratedTicketV1(id: 1, title: "fine", size: 2),
                FixtureMigratedTicketV1(id: 2, title: "broken", size: -1),
            ])
            let tickets = BaseDao<FixtureMigratedTicket, FixtureMigratedTicket>(context: context)
            let error = try Expect.failure("a migration with a record its step fails") { try tickets.migrate() }
            try Expect.that(
                (error as? StorageError)?.key == "2" && "\(error)".contains("cannot take -1 hours"),
                "the error names the record and the step's reason: \(error)")
            // Nothing was written: both are still version 1, and a lazy read spares the good one.
            try Expect.equal(
                try context.fetch(FixtureMigratedTicketV1.self, id: 1)?.title, "fine", "the record that resolves")
            try Expect.equal(
                try tickets.read(id: 1), FixtureMigratedTicket(id: 1, title: "fine", size: "S", weight: 4),
                "it, read lazily")
            try Expect.storageErrorKind(.decodingFailed, "the record that does not, read lazily") {
                try tickets.read(id: 2)
            }
            let older = try versionedContext(context).fetchOlderRecords(FixtureMigratedTicket.self)
            try Expect.equal(older.values.map(\.id), [1], "older records that resolve")
            try Expect.equal(older.failures.map(\.storageKey), ["2"], "older records that do not")
        },
        ContractCheck("migrateKeepsTheFieldsItsVersionRemoved") { context in
            try context.save([
                FixtureKeptNoteV1(id: "a", title: "A", body: "one"),
                FixtureKeptNoteV1(id: "b", title: "B", body: "two"),
            ])
            try Expect.equal(try BaseDao<FixtureKeptNote, FixtureKeptNote>(context: context).migrate(), 2, "migrated")
            try Expect.equal(
                try context.fetchAll(FixtureKeptNoteV1.self).sorted { $0.id < $1.id },
                [
                    FixtureKeptNoteV1(id: "a", title: "A", body: "one"),
                    FixtureKeptNoteV1(id: "b", title: "B", body: "two"),
                ],
                "the notes as version 1 reads them after the migration")
        },
    ]

    /// `context` as a ``VersionedStorageContext``.
    private static func versionedContext(_ context: any StorageContext) throws -> any VersionedStorageContext {
        guard let versioned = context as? any VersionedStorageContext else {
            throw ExpectationFailure(
                message: "\(type(of: context)) is not a VersionedStorageContext", location: "versionedContext")
        }
        return versioned
    }
}
