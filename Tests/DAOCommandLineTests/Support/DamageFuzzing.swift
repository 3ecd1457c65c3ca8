import DAOKit
import DAOKitSQLite
import Foundation
import Testing

@testable import DAOCommandLine

/// What the damage fuzzers share: the entity they store, the seeded generator, the mutations, and
/// the check of a damaged store read through `BaseDao` (`read(id:)` for every stored id, `read()`,
/// `readReadable()`, `count()`) and by `dao verify`. Every record must read back exactly or be
/// reported unreadable (by its key, or the whole read failing with a `StorageError`): never a
/// wrong value, never silently missing.
enum DamageFuzz {
    struct Note: Codable, Identifiable, Equatable {
        var id: String
        var text: String
        var number: Int
    }

    struct NoteEntity: Storable, Equatable {
        static let entityName = "FuzzNote"
        static let indexes = [StorageIndex("number")]
        var id: String
        var text: String
        var number: Int
    }

    static func note(_ number: Int, version: Int) -> Note {
        Note(
            id: "note-\(number)", text: "v\(version) " + String(repeating: "text \(number) ", count: 1 + number % 9),
            number: number * 1_000 + version)
    }

    /// The mutations per run: `release` in release builds (as `.ci/run`'s `swift test -c release`
    /// runs them: issue 28 asks for 2,000 per context), `debug` in debug builds, where every read
    /// is several times slower and the fuzzers run again under the sanitizers: a few hundred, so
    /// that all the fuzzers together add seconds, not minutes, to a debug `swift test`.
    /// `DAOKIT_FUZZ_MUTATIONS` sets another count, for longer runs by hand.
    static func mutations(debug: Int, release: Int = 2_000) -> Int {
        if let count = ProcessInfo.processInfo.environment["DAOKIT_FUZZ_MUTATIONS"].flatMap({ Int($0) }) {
            return count
        }
        #if DEBUG
            return debug
        #else
            return release
        #endif
    }

    /// SplitMix64: the same mutations on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    struct Tally: CustomStringConvertible {
        var mutations = 0
        var exact = 0
        var reported = 0
        var wholeReadFailed = 0
        var olderState = 0
        var wrong = 0
        var missing = 0
        var wrongCount = 0
        /// Reports whose error came from SQLite itself (`SQLITE_CORRUPT`…), and from DAOKit's own
        /// checks (row checksums, the key and index cross-checks), which SQLite cannot make.
        var bySQLite = 0
        var byDAOKit = 0
        var verifyFlagged = 0
        var verifyMissed = 0
        var problems: [String] = []

        var description: String {
            "\(mutations) mutations, \(exact) records read exactly, \(reported) reported by name, "
                + "\(wholeReadFailed) reads failed whole, \(olderState) read an older committed state (damaged -wal), "
                + "\(wrong) wrong, \(missing) silently missing, \(wrongCount) wrong counts; errors from SQLite "
                + "\(bySQLite), from DAOKit's checks \(byDAOKit); dao verify flagged "
                + "\(verifyFlagged), missed \(verifyMissed) that reads reported"
        }

        mutating func classify(_ error: StorageError) {
            if error.underlyingError is SQLiteError { bySQLite += 1 } else { byDAOKit += 1 }
        }

        mutating func problem(_ text: String) {
            if problems.count < 20 { problems.append(text) }
        }
    }

    /// The committed states of the store, oldest first: what every record holds after each
    /// transaction. A read of a store with a damaged `-wal` must match one of them.
    typealias State = [String: Note]

    /// Reads the damaged store and tallies what it finds against `states` (the last is what was
    /// committed; earlier ones are acceptable only when `olderStatesAllowed`).
    static func check(
        open: () throws -> any StorageContext, verifying path: String?, states: [State], olderStatesAllowed: Bool,
        into tally: inout Tally, label: String
    ) throws {
        let expected = states.last!
        var sawDamage = false
        var candidates = olderStatesAllowed ? Array(states.indices) : [states.count - 1]
        // What one record read as: narrows the states that can explain what was read.
        func observe(_ id: String, _ value: Note?) -> Bool {
            let remaining = candidates.filter { states[$0][id] == value }
            if remaining.isEmpty { return false }
            candidates = remaining
            return true
        }
        do {
            let context = try open()
            let dao = BaseDao<Note, NoteEntity>(context: context)
            for id in expected.keys.sorted() {
                do {
                    let value = try dao.read(id: id)
                    if observe(id, value) {
                        if value == nil { continue }
                        tally.exact += 1
                    } else if value == nil {
                        tally.missing += 1
                        tally.problem("\(label): read(id: \(id)) is nil")
                    } else {
                        tally.wrong += 1
                        tally.problem("\(label): read(id: \(id)) is \(value!)")
                    }
                } catch let error as StorageError {
                    tally.reported += 1
                    tally.classify(error)
                    sawDamage = true
                }
            }
            do {
                let all = try dao.read()
                let byID = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                for id in Set(expected.keys).union(byID.keys) where !observe(id, byID[id]) {
                    if byID[id] == nil {
                        tally.missing += 1
                        tally.problem("\(label): read() lacks \(id)")
                    } else {
                        tally.wrong += 1
                        tally.problem("\(label): read() has \(byID[id]!)")
                    }
                }
                if all.count != byID.count {
                    tally.wrong += 1
                    tally.problem("\(label): read() returns an id twice")
                }
            } catch let error as StorageError {
                tally.wholeReadFailed += 1
                tally.classify(error)
                sawDamage = true
            }
            do {
                let readable = try dao.readReadable()
                let named = Set(readable.failures.compactMap(\.storageKey))
                let byID = Dictionary(readable.values.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                if !readable.failures.isEmpty { sawDamage = true }
                for failure in readable.failures { tally.classify(failure.error) }
                for id in Set(expected.keys).union(byID.keys) {
                    if let value = byID[id] {
                        if !observe(id, value) {
                            tally.wrong += 1
                            tally.problem("\(label): readReadable() has \(value)")
                        }
                    } else if !named.contains(id) && !observe(id, nil) {
                        tally.missing += 1
                        tally.problem("\(label): readReadable() neither reads nor reports \(id)")
                    }
                }
            } catch let error as StorageError {
                tally.wholeReadFailed += 1
                tally.classify(error)
                sawDamage = true
            }
            do {
                let count = try dao.count()
                if !candidates.contains(where: { states[$0].count == count }) {
                    tally.wrongCount += 1
                    tally.problem("\(label): count() is \(count)")
                }
            } catch is StorageError {
                sawDamage = true
            }
        } catch let error as StorageError {
            tally.wholeReadFailed += 1
            tally.classify(error)
            sawDamage = true
        }
        if candidates.max() != states.count - 1 { tally.olderState += 1 }
        // dao verify, read-only, on the same damaged files.
        guard let path else { return }
        var output = ""
        var errors = ""
        let status = DAOCommand.run(arguments: ["verify", path], stdout: &output, stderr: &errors)
        if status != 0 {
            tally.verifyFlagged += 1
        } else if sawDamage {
            tally.verifyMissed += 1
            tally.problem("\(label): reads reported damage, dao verify did not: \(output)")
        }
    }

    /// One mutation of `bytes`: a flipped bit, a truncation, or up to 64 bytes copied from
    /// elsewhere in `sources` (another page of the file, a row of another record).
    static func mutate(_ bytes: inout Data, sources: [Data], using random: inout Generator) {
        switch Int.random(in: 0..<3, using: &random) {
        case 0 where !bytes.isEmpty:
            let position = Int.random(in: 0..<bytes.count, using: &random)
            bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        case 1:
            bytes = bytes.prefix(Int.random(in: 0...bytes.count, using: &random))
        default:
            let source = sources[Int.random(in: 0..<sources.count, using: &random)]
            guard !source.isEmpty, !bytes.isEmpty else { return }
            let length = Int.random(in: 1...min(source.count, 64), using: &random)
            let from = Int.random(in: 0...(source.count - length), using: &random)
            let to = Int.random(in: 0...max(0, bytes.count - length), using: &random)
            bytes.replaceSubrange(to..<min(bytes.count, to + length), with: source[from..<(from + length)])
        }
    }

}
