import DAOKit
import Testing

/// What the `DAOKitCrashWriter batches` child leaves behind when it is killed, checked the same way
/// for the file store's and the SQLite context's crash tests, whose children run the same batches.
///
/// The child runs generation g as: save base-0…7 and insert-g-0…3 with generation g (one batch),
/// delete insert-(g-2)-* (one batch), save "single" (one write). So with G the generation of
/// base-0, a whole history means: every base record has generation G; insert-g-* exist, whole, for
/// g in G-1…G, all or none for g = G-2, none otherwise; "single" has generation G-1 or G; and every
/// payload is the one its generation writes.
package enum CrashWriterHistory {
    /// Checks the invariants above on what `context` holds and returns G.
    package static func checkWholeHistory(_ context: any StorageContext, round: Int) throws -> Int {
        let records = Dictionary(uniqueKeysWithValues: try context.fetchAll(FileCrashRecord.self).map { ($0.id, $0) })
        #expect(try context.count(FileCrashRecord.self) == records.count)
        guard let generation = records["base-0"]?.generation else {
            #expect(records.isEmpty, "round \(round): records without a first batch: \(records.keys.sorted())")
            return 0
        }
        var expected = Set<String>()
        for index in 0..<8 {
            expected.insert("base-\(index)")
            #expect(
                records["base-\(index)"]?.generation == generation,
                "round \(round): base-\(index) is not from batch \(generation)")
        }
        for g in max(1, generation - 1)...generation {
            for index in 0..<4 { expected.insert("insert-\(g)-\(index)") }
        }
        let older = (0..<4).map { "insert-\(generation - 2)-\($0)" }
        let olderPresent = older.filter { records[$0] != nil }
        #expect(
            olderPresent.isEmpty || olderPresent.count == 4, "round \(round): a delete batch was torn: \(olderPresent)")
        expected.formUnion(olderPresent)
        if let single = records["single"] {
            expected.insert("single")
            #expect(
                single.generation == generation || single.generation == generation - 1,
                "round \(round): single is \(single.generation), G is \(generation)")
        } else {
            #expect(generation == 1, "round \(round): single is missing")
        }
        #expect(
            Set(records.keys) == expected,
            "round \(round): G \(generation), unexpected \(Set(records.keys).symmetricDifference(expected).sorted())")
        for record in records.values {
            let expectedPayload = String(
                repeating: "g\(record.generation)-\(record.id);",
                count: 1 + (record.generation * 7 + record.id.utf8.count) % 40)
            #expect(record.payload == expectedPayload, "round \(round): \(record.id) holds a mixed payload")
            if record.id.hasPrefix("insert-") {
                #expect(
                    record.id.hasPrefix("insert-\(record.generation)-"),
                    "round \(round): \(record.id) has generation \(record.generation)")
            }
        }
        return generation
    }
}

/// A task the `DAOKitCrashWriter transactions` child writes (its `CrashTask`).
package struct CrashTxTask: Storable, Equatable {
    package static var entityName: String { "CrashTask" }
    package var id: String
    package var sequence: Int
    package var value: Int
    package var payload: String
}

/// A comment the `DAOKitCrashWriter transactions` child writes (its `CrashComment`).
package struct CrashTxComment: Storable, Equatable {
    package static var entityName: String { "CrashComment" }
    package var id: String
    package var sequence: Int
    package var value: Int
    package var payload: String
}

extension CrashWriterHistory {
    /// What a transaction of the `transactions` children writes into record `id`.
    package static func transactionPayload(id: String, sequence: Int) -> String {
        String(repeating: "s\(sequence)-\(id);", count: 1 + (sequence * 7 + id.utf8.count) % 40)
    }

    /// Checks what the `DAOKitCrashWriter transactions` child leaves behind and returns G, the
    /// last transaction whose writes are there; counts every way the two types disagree as a torn
    /// transaction, and returns how many it found beside G (each is also an expectation failure).
    ///
    /// Transaction g creates task-g and comment-g, removes task-(g-3) and comment-(g-3), and moves
    /// one unit from the task type's "balance" to the comment type's, both stamped g. So with G
    /// the sequence of the task balance: the comment balance has sequence G too, the two values
    /// are -G and G, and the tasks and the comments are exactly those of max(1, G-2)…G, each
    /// with its sequence and payload. A transaction of which one type's part is there and the
    /// other's is not breaks one of these.
    package static func checkTransactions(_ context: any StorageContext, round: Int) throws -> (
        sequence: Int, torn: Int
    ) {
        let tasks = Dictionary(uniqueKeysWithValues: try context.fetchAll(CrashTxTask.self).map { ($0.id, $0) })
        let comments = Dictionary(uniqueKeysWithValues: try context.fetchAll(CrashTxComment.self).map { ($0.id, $0) })
        var torn = 0
        func expect(_ condition: Bool, _ message: String) {
            if !condition { torn += 1 }
            #expect(condition, "round \(round): \(message)")
        }
        let sequence = tasks["balance"]?.sequence ?? 0
        expect(comments["balance"]?.sequence ?? 0 == sequence, "the balances name different transactions")
        expect((tasks["balance"]?.value ?? 0) == -sequence, "the task balance is not -\(sequence)")
        expect((comments["balance"]?.value ?? 0) == sequence, "the comment balance is not \(sequence)")
        let kept = sequence == 0 ? [] : Array(max(1, sequence - 2)...sequence)
        expect(
            Set(tasks.keys) == Set(kept.map { "task-\($0)" } + (sequence == 0 ? [] : ["balance"])),
            "tasks \(tasks.keys.sorted()) after transaction \(sequence)")
        expect(
            Set(comments.keys) == Set(kept.map { "comment-\($0)" } + (sequence == 0 ? [] : ["balance"])),
            "comments \(comments.keys.sorted()) after transaction \(sequence)")
        for task in tasks.values {
            expect(task.payload == transactionPayload(id: task.id, sequence: task.sequence), "\(task.id) is mixed")
            if task.id != "balance" { expect(task.id == "task-\(task.sequence)", "\(task.id) is \(task.sequence)") }
        }
        for comment in comments.values {
            expect(
                comment.payload == transactionPayload(id: comment.id, sequence: comment.sequence),
                "\(comment.id) is mixed")
            if comment.id != "balance" {
                expect(comment.id == "comment-\(comment.sequence)", "\(comment.id) is \(comment.sequence)")
            }
        }
        return (sequence, torn)
    }
}

/// The record the `DAOKitCrashWriter migrations` child writes, read at its version 2 (its
/// `CrashMigrationV2`).
package struct CrashMigrationRecord: Storable, Equatable {
    package static var entityName: String { "CrashMigration" }
    package static let schema = EntitySchema(
        version: 2, steps: [2: [.renamed("label", to: "title"), .added("weight", default: 1)]])
    package var id: String
    package var generation: Int
    package var title: String
    package var weight: Int
}

extension CrashWriterHistory {
    /// Checks what the `DAOKitCrashWriter migrations` child leaves behind: 300 records (or none,
    /// before its first generation), all of one generation G, each holding its title, and either
    /// all of version 1 or all of version 2 — a `migrate()` that left some records old and some
    /// new counts as torn (and is an expectation failure). Returns G, whether the records were
    /// migrated, and how many migrations were torn (0 or 1).
    package static func checkMigrations(_ context: some VersionedStorageContext, round: Int) throws -> (
        generation: Int, migrated: Bool, torn: Int
    ) {
        let records = try context.fetchAll(CrashMigrationRecord.self)
        let older = try context.fetchOlderRecords(CrashMigrationRecord.self)
        #expect(older.failures.isEmpty, "round \(round): \(older.failures)")
        if records.isEmpty { return (0, false, 0) }
        let generation = records[0].generation
        #expect(records.count == 300, "round \(round): \(records.count) records")
        for record in records {
            let number = record.id.dropFirst()
            #expect(
                record.generation == generation && record.title == "g\(generation)-\(number)" && record.weight == 1,
                "round \(round): \(record) in generation \(generation)")
        }
        let torn = older.values.count != 0 && older.values.count != records.count
        #expect(!torn, "round \(round): \(older.values.count) of \(records.count) records are still version 1")
        return (generation, older.values.isEmpty, torn ? 1 : 0)
    }
}
