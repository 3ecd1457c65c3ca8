import DAOKit
import DAOKitFileStore
import DAOKitStoreFormat
import Foundation
import Testing

/// A bounded, seeded damage fuzzer for file stores in both record formats: bytes of the record
/// files, of a pending `.journal` (a batch that failed before it changed a record), of `.changes`
/// and of `.lock` are flipped, truncated or overwritten with bytes spliced from a record, and the
/// store is read back through `BaseDao` by a fresh context and checked by `dao verify`. Every
/// record must read back exactly or be reported unreadable: never a wrong value, never silently
/// missing.
@Suite("File store damage fuzzer")
struct FileStoreDamageFuzzTests {
    static let count = 24
    static let mutations = DamageFuzz.mutations(debug: 60)

    /// Every regular file under `directory`, by path relative to it.
    static func files(under directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let base = directory.standardizedFileURL.path
        guard let walk = FileManager.default.enumerator(atPath: base) else { return result }
        for case let relative as String in walk {
            var isDirectory: ObjCBool = false
            let path = base + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return result
    }

    /// Puts `snapshot` back: every file as it was, and no other (a recovery may have removed the
    /// journal or left a temporary file).
    static func restore(_ snapshot: [String: Data], under directory: URL) throws {
        let base = directory.standardizedFileURL.path
        for (relative, _) in try files(under: directory) where snapshot[relative] == nil {
            try FileManager.default.removeItem(atPath: base + "/" + relative)
        }
        for (relative, bytes) in snapshot {
            try bytes.write(to: URL(fileURLWithPath: base + "/" + relative))
        }
    }

    @Test(arguments: [FileStorageContext.RecordFormat.json, .propertyList])
    func everyRecordReadsBackExactlyOrIsReported(_ format: FileStorageContext.RecordFormat) throws {
        let store = CLIStore()
        defer { store.remove() }
        let notes = (0..<Self.count).map { DamageFuzz.note($0, version: 1) }
        let recordFiles: [String]
        do {
            let context = try FileStorageContext(directory: store.url, format: format)
            try BaseDao<DamageFuzz.Note, DamageFuzz.NoteEntity>(context: context).persist(notes)
            let urls = notes.map { context.fileURL(for: DamageFuzz.NoteEntity.self, id: $0.id) }
            recordFiles = urls.map { $0.deletingLastPathComponent().lastPathComponent + "/" + $0.lastPathComponent }
            // A batch that failed before it changed a record: its journal holds what the records hold.
            let journal = Journal(
                directoryName: urls[0].deletingLastPathComponent().lastPathComponent,
                entries: try urls.prefix(3).map {
                    Journal.Entry(fileName: $0.lastPathComponent, previousContents: try Data(contentsOf: $0))
                })
            try journal.serialized().write(to: store.url.appendingPathComponent(".journal"))
        }
        let snapshot = try Self.files(under: store.url)
        let targets = recordFiles + [".journal", ".changes", ".lock"].filter { snapshot[$0] != nil }
        #expect(targets.count == Self.count + 3, "\(snapshot.keys.sorted())")
        let records = recordFiles.compactMap { snapshot[$0] }
        let state = Dictionary(uniqueKeysWithValues: notes.map { ($0.id, $0) })
        var random = DamageFuzz.Generator(state: format == .json ? 0x5EED_F11E : 0x5EED_B115)
        var tally = DamageFuzz.Tally()
        for mutation in 0..<Self.mutations {
            let target = targets[Int.random(in: 0..<targets.count, using: &random)]
            var bytes = snapshot[target]!
            DamageFuzz.mutate(&bytes, sources: records, using: &random)
            try bytes.write(to: store.url.appendingPathComponent(target))
            try DamageFuzz.check(
                open: { try FileStorageContext(directory: store.url, format: format) }, verifying: store.path,
                states: [state], olderStatesAllowed: false, into: &tally, label: "mutation \(mutation) of \(target)")
            tally.mutations += 1
            try Self.restore(snapshot, under: store.url)
        }
        print("File store damage fuzzer (\(format)): \(tally)")
        for problem in tally.problems { print("  \(problem)") }
        #expect(tally.wrong == 0, "\(tally.problems)")
        #expect(tally.missing == 0, "\(tally.problems)")
        #expect(tally.wrongCount == 0, "\(tally.problems)")
        #expect(tally.verifyMissed == 0, "\(tally.problems)")
        #expect(tally.reported + tally.wholeReadFailed > Self.mutations / 4, "\(tally)")
    }
}
