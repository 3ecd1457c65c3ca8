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
