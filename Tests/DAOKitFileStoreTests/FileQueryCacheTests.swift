import DAOKitTestSupport
import Foundation
import Synchronization
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file store's query cache: warm queries answer from decoded entities and indexes, stay
/// coherent with this context's writes, other contexts' writes and other processes' writes (the
/// change log), and fall back to scanning whenever keeping the type is not possible.
@Suite("File query cache", .serialized)
struct FileQueryCacheTests {
    /// Counts `init(from:)` calls, to see how many records a query decodes.
    struct Counted: Storable, Equatable {
        static let indexes = [StorageIndex("group", "rank")]
        static let decodes = Atomic<Int>(0)
        var id: String
        var group: Int
        var rank: Int

        init(id: String, group: Int, rank: Int) {
            (self.id, self.group, self.rank) = (id, group, rank)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            group = try container.decode(Int.self, forKey: .group)
            rank = try container.decode(Int.self, forKey: .rank)
            Self.decodes.add(1, ordering: .relaxed)
        }
    }

    static func records(_ count: Int) -> [Counted] {
        (0..<count).map { Counted(id: "r\($0)", group: $0 % 10, rank: ($0 * 37) % 101) }
    }

    static let screen = StorageQuery(
        filter: .compare("group", .equal, .int(3)),
        sort: [StorageSortKey("rank", order: .reverse)], limit: 5)

    @Test func aWarmIndexedQueryDecodesOnlyWhatItReturns() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.records(400))
            _ = try context.fetch(Counted.self, matching: Self.screen)  // cold: loads the type
            let before = Counted.decodes.load(ordering: .relaxed)
            let page = try context.fetch(Counted.self, matching: Self.screen)
            let decoded = Counted.decodes.load(ordering: .relaxed) - before
            #expect(page.count == 5)
            #expect(decoded <= page.count + 40, "decoded \(decoded) records for \(page.count)")
            #expect(page == (try Self.screen.apply(to: try context.fetchAll(Counted.self))))
        }
    }

    @Test func thisContextsWritesAreSeenByTheNextQuery() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.records(50))
            _ = try context.fetch(Counted.self, matching: Self.screen)
            try context.save([Counted(id: "new", group: 3, rank: 1_000)])
            try context.delete(Counted.self, ids: ["r3"])
            var moved = Self.records(50)[13]
            moved.group = 4
            try context.save([moved])
            let page = try context.fetch(
                Counted.self,
                matching: StorageQuery(
                    filter: .compare("group", .equal, .int(3)),
                    sort: [StorageSortKey("rank", order: .reverse)]))
            #expect(page.first?.id == "new")
            #expect(!page.contains { $0.id == "r3" || $0.id == "r13" })
            #expect(
                page
                    == (try StorageQuery(
                        filter: .compare("group", .equal, .int(3)), sort: [StorageSortKey("rank", order: .reverse)]
                    )
                    .apply(to: try context.fetchAll(Counted.self))))
        }
    }

    /// Two indexes, so that a query through one leaves the other unbuilt.
    struct TwoIndexes: Storable, Equatable {
        static let indexes = [StorageIndex("group", "rank"), StorageIndex("rank")]
        var id: String
        var group: Int
        var rank: Int
    }

    @Test func anIndexFirstWalkedAfterWritesHoldsEveryWriteSinceTheLoad() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.records(60).map { TwoIndexes(id: $0.id, group: $0.group, rank: $0.rank) })
            // Loads the type and walks the (group, rank) index only.
            _ = try context.fetch(TwoIndexes.self, matching: Self.screen)
            // Writes while the (rank) index is not built: an insertion, a move, a removal.
            try context.save([TwoIndexes(id: "new", group: 1, rank: 50), TwoIndexes(id: "r7", group: 7, rank: 99)])
            try context.delete(TwoIndexes.self, ids: ["r2"])
            let byRank = StorageQuery(
                filter: .compare("rank", .greaterOrEqual, .int(40)),
                sort: [StorageSortKey("rank"), StorageSortKey("id")])
            let found = try context.fetch(TwoIndexes.self, matching: byRank)
            #expect(found == (try byRank.apply(to: try context.fetchAll(TwoIndexes.self))))
            #expect(found.contains { $0.id == "new" } && found.contains { $0.id == "r7" && $0.rank == 99 })
            #expect(
                try context.count(TwoIndexes.self, matching: .compare("rank", .less, .int(40)))
                    == (try context.fetchAll(TwoIndexes.self).filter { $0.rank < 40 }.count))
            // Both indexes follow later writes.
            try context.save([TwoIndexes(id: "r7", group: 3, rank: 0)])
            #expect(
                try context.fetch(TwoIndexes.self, matching: Self.screen)
                    == (try Self.screen.apply(to: try context.fetchAll(TwoIndexes.self))))
            #expect(
                try context.fetch(TwoIndexes.self, matching: byRank)
                    == (try byRank.apply(to: try context.fetchAll(TwoIndexes.self))))
        }
    }

    @Test func anotherContextsWritesOnTheSameStoreAreSeenByTheNextQuery() throws {
        try FileTestDirectory.with { directory in
            let reader = try FileStorageContext(directory: directory.url)
            let writer = try FileStorageContext(directory: directory.url)
            try writer.save(Self.records(30))
            #expect(try reader.count(Counted.self, matching: .compare("group", .equal, .int(3))) == 3)
            try writer.save([Counted(id: "x", group: 3, rank: 0)])
            try writer.delete(Counted.self, ids: ["r13"])
            #expect(try reader.count(Counted.self, matching: .compare("group", .equal, .int(3))) == 3)
            try writer.deleteAll(Counted.self)
            #expect(try reader.count(Counted.self, matching: .compare("group", .equal, .int(3))) == 0)
        }
    }

    @Test func aWriteByAChildProcessIsSeenByTheNextQuery() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileCrashRecord(id: "seed", generation: 0, payload: "")])
            let query = StorageQuery(filter: .hasPrefix("id", "child-"))
            #expect(try context.fetch(FileCrashRecord.self, matching: query).isEmpty)  // warm, and empty
            let child = try FileChildProcess(arguments: ["writer", directory.path, "child", "12"])
            let (status, output, errors) = child.finish()
            #expect(status == 0, "\(errors)")
            #expect(output == ["done"])
            let found = try context.fetch(FileCrashRecord.self, matching: query)
            #expect(Set(found.map(\.id)) == Set((0..<12).map { "child-\($0)" }))
        }
    }

    @Test func recordsUnderHashedNamesThatAnotherContextChangesAreSeenByTheNextQuery() throws {
        try FileTestDirectory.with { directory in
            let reader = try FileStorageContext(directory: directory.url)
            let writer = try FileStorageContext(directory: directory.url)
            // Keys too long for a file name, stored under hashed names that do not spell them out.
            let longIDs = (0..<6).map { "h\($0)-" + String(repeating: "x", count: 300) }
            try writer.save(longIDs.enumerated().map { Counted(id: $1, group: 3, rank: $0) } + Self.records(20))
            #expect(reader.fileURL(for: Counted.self, id: longIDs[0]).lastPathComponent.hasPrefix("#"))
            let groupThree = StorageQuery(filter: .compare("group", .equal, .int(3)), sort: [StorageSortKey("id")])
            #expect(try reader.fetch(Counted.self, matching: groupThree).count == 8)  // loads the type
            try writer.delete(Counted.self, ids: [longIDs[1], "r13"])
            try writer.save([Counted(id: longIDs[2], group: 4, rank: 2)])
            let found = try reader.fetch(Counted.self, matching: groupThree)
            #expect(found.map(\.id) == ([longIDs[0]] + longIDs[3...] + ["r3"]).sorted())
            #expect(found == (try groupThree.apply(to: try writer.fetchAll(Counted.self))))
        }
    }

    @Test func aFirstQueryWithAnyOneCallFailingThrowsNamingAPathOrAnswersAndTheNextOneAnswers() throws {
        try FileTestDirectory.with { directory in
            let writer = try FileStorageContext(directory: directory.url)
            try writer.save(
                Self.records(100) + [Counted(id: "long-" + String(repeating: "y", count: 300), group: 3, rank: 1_000)])
            let expected = try Self.screen.apply(to: try writer.fetchAll(Counted.self))
            var (thrown, triedEveryCall) = (0, false)
            // Each call of a cold first query fails in turn: opening the directory, reading a
            // record (in the first run or a later one), closing a file, taking the lock.
            for call in 1...5_000 {
                let fileSystem = FaultInjectingFileSystem()
                let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
                fileSystem.arm(.fail(operation: call, code: EIO))
                do {
                    #expect(
                        try context.fetch(Counted.self, matching: Self.screen) == expected,
                        "call \(call) failed, and the answer differs")
                } catch let error as StorageError {
                    thrown += 1
                    #expect(error.location != nil, "call \(call): \(error)")
                }
                let injected = fileSystem.failureCount
                fileSystem.arm(.passThrough)
                #expect(try context.fetch(Counted.self, matching: Self.screen) == expected, "after call \(call) failed")
                if injected == 0 {  // the query made fewer calls: every one has failed once
                    triedEveryCall = true
                    break
                }
            }
            #expect(triedEveryCall)
            #expect(thrown > 100, "only \(thrown) failures were reported")
        }
    }

    @Test func aFullChangeLogIsReplacedAndCachesStayCoherent() throws {
        try FileTestDirectory.with { directory in
            let reader = try FileStorageContext(directory: directory.url)
            let writer = try FileStorageContext(directory: directory.url)
            try writer.save(Self.records(20))
            #expect(try reader.count(Counted.self, matching: .compare("group", .equal, .int(1))) == 2)
            // Batches of long keys, enough lines to pass the log's bound at least once.
            let longIDs = (0..<300).map { "k\($0)-" + String(repeating: "k", count: 200) }
            let rounds = ChangeLog.maximumLength / (300 * 200) + 2
            for round in 0..<rounds {
                try writer.save(longIDs.map { Counted(id: $0, group: 1, rank: round) })
            }
            #expect(try reader.count(Counted.self, matching: .compare("group", .equal, .int(1))) == 302)
            #expect(
                try reader.fetch(
                    Counted.self, matching: StorageQuery(filter: .compare("id", .equal, .string(longIDs[7])))
                )
                .first?.rank == rounds - 1)
        }
    }

    @Test func aDisabledCacheAndAnOverfullTypeStillAnswerCorrectly() throws {
        try FileTestDirectory.with { directory in
            let writer = try FileStorageContext(directory: directory.url)
            try writer.save(Self.records(60))
            let expected = try Self.screen.apply(to: try writer.fetchAll(Counted.self))
            for policy in [FileStorageContext.QueryCache.disabled, .records(10)] {
                let context = try FileStorageContext(directory: directory.url, queryCache: policy)
                #expect(try context.fetch(Counted.self, matching: Self.screen) == expected)
                try writer.save([Counted(id: "late", group: 3, rank: 5_000)])
                #expect(try context.fetch(Counted.self, matching: Self.screen).first?.id == "late")
                try writer.delete(Counted.self, ids: ["late"])
            }
        }
    }

    @Test func aCorruptRecordMakesTheQueryFailNamingItAsAScanWould() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.records(10))
            _ = try context.fetch(Counted.self, matching: Self.screen)
            let path = context.fileURL(for: Counted.self, id: "r4").path
            try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
            // Another context's change would be logged; a file changed behind the store's back is
            // not, so the warm cache cannot know. A cold context must name the record.
            let cold = try FileStorageContext(directory: directory.url)
            let error = try #require(throws: StorageError.self) { try cold.fetch(Counted.self, matching: Self.screen) }
            #expect(error.key == "r4" || "\(error)".contains("r4"))
        }
    }

    @Test func aDeleteByFilterRemovesExactlyTheMatchingRecords() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.records(40))
            try context.delete(
                Counted.self,
                matching: .and([.compare("group", .equal, .int(2)), .compare("rank", .greater, .int(50))]))
            let left = try context.fetchAll(Counted.self)
            #expect(left.count == 40 - Self.records(40).filter { $0.group == 2 && $0.rank > 50 }.count)
            #expect(!left.contains { $0.group == 2 && $0.rank > 50 })
        }
    }

    @Test func aChangeLogThatIsALinkMakesWritesFailNamingItAndChangesNothing() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.records(3))
            let outside = FileManager.default.temporaryDirectory.appendingPathComponent(
                "changes-target-\(UUID().uuidString)")
            try Data().write(to: outside)
            defer { try? FileManager.default.removeItem(at: outside) }
            try FileManager.default.removeItem(atPath: directory.path + "/.changes")
            try FileManager.default.createSymbolicLink(
                atPath: directory.path + "/.changes", withDestinationPath: outside.path)
            let error = try #require(throws: StorageError.self) {
                try context.save([Counted(id: "new", group: 1, rank: 1)])
            }
            #expect(error.location?.hasSuffix("/.changes") == true, "\(error)")
            #expect(try context.fetch(Counted.self, id: "new") == nil)
            #expect(try Data(contentsOf: outside).isEmpty)
        }
    }

    @Test func aStoreWithoutAChangeLogIsLoadedOnceAndALogThatAppearsLaterIsRead() throws {
        try FileTestDirectory.with { directory in
            try FileStorageContext(directory: directory.url).save(Self.records(200))
            // As a store written before the change log existed.
            try FileManager.default.removeItem(atPath: directory.path + "/.changes")
            let reader = try FileStorageContext(directory: directory.url)
            _ = try reader.fetch(Counted.self, matching: Self.screen)
            let before = Counted.decodes.load(ordering: .relaxed)
            let page = try reader.fetch(Counted.self, matching: Self.screen)
            #expect(
                Counted.decodes.load(ordering: .relaxed) - before <= page.count + 40, "a warm query reloaded the store")
            try FileStorageContext(directory: directory.url).save([Counted(id: "late", group: 3, rank: 9_999)])
            #expect(try reader.fetch(Counted.self, matching: Self.screen).first?.id == "late")
        }
    }
}
