import DAOKit
import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOCommandLine

/// A bounded, seeded damage fuzzer for SQLite stores: bytes of a database file (cleanly closed, or
/// with its newest transactions still in its `-wal`) are flipped, truncated or overwritten with
/// bytes spliced from elsewhere in the files, and the store is read back through `BaseDao` —
/// `read(id:)` for every stored id, `read()`, `count()`, `readReadable()` — and checked by
/// `dao verify`. Every record must read back exactly or be reported unreadable (by its key, or
/// the whole read failing with a `StorageError`): never a wrong value, never silently missing. A
/// damaged `-wal` is SQLite's documented exception: SQLite stops at the first damaged frame, so
/// the store reads as an earlier committed state, which is counted apart ("older state").
@Suite("SQLite damage fuzzer")
struct SQLiteDamageFuzzTests {
    typealias Note = DamageFuzz.Note
    typealias NoteEntity = DamageFuzz.NoteEntity
    typealias Generator = DamageFuzz.Generator
    typealias Tally = DamageFuzz.Tally
    typealias State = DamageFuzz.State
    /// Enough rows for interior pages in the table and its key index.
    static let count = 240
    static let mutations = DamageFuzz.mutations(debug: 120)
    static func note(_ number: Int, version: Int) -> Note { DamageFuzz.note(number, version: version) }

    static func check(_ file: URL, states: [State], olderStatesAllowed: Bool, into tally: inout Tally, label: String)
        throws
    {
        try DamageFuzz.check(
            open: { try SQLiteStorageContext(file: file) }, verifying: file.path, states: states,
            olderStatesAllowed: olderStatesAllowed, into: &tally, label: label)
    }

    static func mutate(_ bytes: inout Data, sources: [Data], using random: inout Generator) {
        DamageFuzz.mutate(&bytes, sources: sources, using: &random)
    }

    static func removeSidecars(of file: URL) {
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: file.path + suffix)
        }
    }

    @Test func aCleanlyClosedDatabaseReadsBackExactlyOrReportsDamage() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let notes = (0..<Self.count).map { Self.note($0, version: 1) }
        do {
            let dao = BaseDao<Note, NoteEntity>(context: try database.open())
            try dao.persist(notes)
        }  // closed: checkpointed into the database file, the -wal deleted
        #expect(!FileManager.default.fileExists(atPath: database.file.path + "-wal"))
        let original = try Data(contentsOf: database.file)
        let state = Dictionary(uniqueKeysWithValues: notes.map { ($0.id, $0) })
        var random = Generator(state: 0x5EED_5017)
        var tally = Tally()
        for mutation in 0..<Self.mutations {
            var bytes = original
            Self.mutate(&bytes, sources: [original], using: &random)
            try bytes.write(to: database.file)
            Self.removeSidecars(of: database.file)
            try Self.check(
                database.file, states: [state], olderStatesAllowed: false, into: &tally, label: "mutation \(mutation)")
            tally.mutations += 1
        }
        print("SQLite damage fuzzer, database file: \(tally)")
        for problem in tally.problems { print("  \(problem)") }
        #expect(tally.wrong == 0, "\(tally.problems)")
        #expect(tally.missing == 0, "\(tally.problems)")
        #expect(tally.olderState == 0, "\(tally.problems)")
        #expect(tally.verifyMissed == 0, "\(tally.problems)")
        #expect(tally.reported + tally.wholeReadFailed > Self.mutations / 10, "\(tally)")
        // Damage inside a row's payload passes SQLite's checks: only DAOKit's checksum sees it.
        #expect(tally.byDAOKit > Self.mutations / 20, "\(tally)")
        try original.write(to: database.file)
        Self.removeSidecars(of: database.file)
        #expect(try BaseDao<Note, NoteEntity>(context: try database.open()).count() == Self.count)
    }

    @Test func aDatabaseWithItsWALReadsBackExactlyAnOlderStateOrReportsDamage() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        var state = State()
        var states: [State] = []
        do {
            let base = (0..<Self.count).map { Self.note($0, version: 1) }
            try BaseDao<Note, NoteEntity>(context: try database.open()).persist(base)
            for note in base { state[note.id] = note }
            states.append(state)
        }  // closed: the base is in the database file
        let snapshot: (database: Data, wal: Data)
        do {
            let dao = BaseDao<Note, NoteEntity>(context: try database.open())
            for version in 2...6 {
                let changed = stride(from: version, to: Self.count + 20, by: 7).map { Self.note($0, version: version) }
                try dao.persist(changed)
                for note in changed { state[note.id] = note }
                states.append(state)
            }
            // A copy while the context is open: the database file and its -wal, as a crash leaves them.
            snapshot = (
                try Data(contentsOf: database.file),
                try Data(contentsOf: URL(fileURLWithPath: database.file.path + "-wal"))
            )
        }
        let wal = URL(fileURLWithPath: database.file.path + "-wal")
        var random = Generator(state: 0x5EED_3A17)
        var tally = Tally()
        for mutation in 0..<Self.mutations {
            var bytes = snapshot
            if Bool.random(using: &random) {
                Self.mutate(&bytes.wal, sources: [bytes.wal, bytes.database], using: &random)
            } else {
                Self.mutate(&bytes.database, sources: [bytes.database, bytes.wal], using: &random)
            }
            Self.removeSidecars(of: database.file)
            try bytes.database.write(to: database.file)
            try bytes.wal.write(to: wal)
            try Self.check(
                database.file, states: states, olderStatesAllowed: true, into: &tally, label: "mutation \(mutation)")
            tally.mutations += 1
        }
        print("SQLite damage fuzzer, database file and -wal: \(tally)")
        #expect(tally.wrong == 0, "\(tally.problems)")
        #expect(tally.missing == 0, "\(tally.problems)")
        #expect(tally.verifyMissed == 0, "\(tally.problems)")
    }
}
