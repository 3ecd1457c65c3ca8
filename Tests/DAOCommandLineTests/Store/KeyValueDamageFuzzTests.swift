import DAOKit
import Foundation
import Testing

/// A bounded, seeded damage fuzzer for the key-value context, on the harness the file and SQLite
/// fuzzers share (hence its place here): the stored text of a record is flipped, truncated or
/// overwritten with text spliced from another record, and the store is read back through
/// `BaseDao` by a fresh context. Every record must read back exactly or be reported unreadable by
/// its key: never a wrong value, never silently missing. (`dao` does not read key-value stores.)
@Suite("Key-value damage fuzzer")
struct KeyValueDamageFuzzTests {
    @Test func everyRecordReadsBackExactlyOrIsReported() throws {
        let store = InMemoryKeyValueStore()
        let notes = (0..<24).map { DamageFuzz.note($0, version: 1) }
        try BaseDao<DamageFuzz.Note, DamageFuzz.NoteEntity>(context: KeyValueStorageContext(store: store)).persist(
            notes)
        let keys = store.keys(withPrefix: "DAOKit/").sorted()
        #expect(keys.count == notes.count)
        let originals = keys.map { Data(store.string(forKey: $0)!.utf8) }
        let state = Dictionary(uniqueKeysWithValues: notes.map { ($0.id, $0) })
        let mutations = DamageFuzz.mutations(debug: 200)
        var random = DamageFuzz.Generator(state: 0x5EED_CAFE)
        var tally = DamageFuzz.Tally()
        for mutation in 0..<mutations {
            let target = Int.random(in: 0..<keys.count, using: &random)
            var bytes = originals[target]
            DamageFuzz.mutate(&bytes, sources: originals, using: &random)
            // A store holds strings: bytes that are not UTF-8 become U+FFFD, damage all the same.
            store.setString(String(decoding: bytes, as: UTF8.self), forKey: keys[target])
            try DamageFuzz.check(
                open: { KeyValueStorageContext(store: store) }, verifying: nil, states: [state],
                olderStatesAllowed: false, into: &tally, label: "mutation \(mutation) of \(keys[target])")
            tally.mutations += 1
            store.setString(String(decoding: originals[target], as: UTF8.self), forKey: keys[target])
        }
        print("Key-value damage fuzzer: \(tally)")
        for problem in tally.problems { print("  \(problem)") }
        #expect(tally.wrong == 0, "\(tally.problems)")
        #expect(tally.missing == 0, "\(tally.problems)")
        #expect(tally.wrongCount == 0, "\(tally.problems)")
        #expect(tally.reported > mutations / 2, "\(tally)")
    }
}
