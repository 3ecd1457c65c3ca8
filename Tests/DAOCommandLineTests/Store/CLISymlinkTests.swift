import DAOKit
import DAOKitFileStore
import DAOKitStoreFormat
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `dao` reads a store through the store format's confined file system, so it reports a link
/// inside the store exactly where the store refuses it, and never prints what a link points to.
@Suite("CLI symlinks")
struct CLISymlinkTests {
    /// The reproduction: a store whose record `^note/n1.json` is a link to a record outside
    /// the store, and whose `^user` folder is a link to a folder outside it.
    private struct Reproduction {
        let store: CLIStore
        let recordLink: String
        let folderLink: String
        let outside: String

        init(_ store: CLIStore) throws {
            self.store = store
            let context = try store.withNotes(2)
            outside = store.path + "-outside"
            let twin = try FileStorageContext(directory: URL(fileURLWithPath: outside))
            try twin.save([CLINote(id: "n1", text: "outside secret")])
            try twin.save([CLIUser(id: "u1", name: "outside user")])
            recordLink = store.notePath("n1", in: context)
            try FileManager.default.removeItem(atPath: recordLink)
            #expect(symlink(outside + "/^note/n1.json", recordLink) == 0)
            folderLink = store.path + "/^user"
            #expect(symlink(outside + "/^user", folderLink) == 0)
        }

        func removeOutside() { try? FileManager.default.removeItem(atPath: outside) }
    }

    @Test func verifyExitsWithProblemsNamingBothLinks() throws {
        try CLIStore.with { store in
            let reproduction = try Reproduction(store)
            defer { reproduction.removeOutside() }
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(run.outputLines.contains("\(reproduction.recordLink): not a regular file"), "\(run.outputLines)")
            #expect(
                run.outputLines.contains { $0.hasPrefix("\(reproduction.folderLink): a symbolic link") },
                "\(run.outputLines)")
            #expect(!run.output.contains("sound"))
        }
    }

    @Test func dumpRefusesASymlinkedRecordAndNeverPrintsItsTarget() throws {
        try CLIStore.with { store in
            let reproduction = try Reproduction(store)
            defer { reproduction.removeOutside() }
            let run = dao("dump", store.path, "Note")
            #expect(run.status == 1)
            #expect(run.errorLines == ["dao dump: skipped \(reproduction.recordLink): not a regular file"])
            #expect(!run.output.contains("outside secret"))
            #expect(run.output.contains("\"n0\""))
        }
    }

    @Test func dumpRefusesASymlinkedEntityFolderNamingIt() throws {
        try CLIStore.with { store in
            let reproduction = try Reproduction(store)
            defer { reproduction.removeOutside() }
            let run = dao("dump", store.path, "User")
            #expect(run.status == 1)
            #expect(run.errors.hasPrefix("dao dump: \(reproduction.folderLink): a symbolic link"), "\(run.errors)")
            #expect(!run.output.contains("outside user"))
        }
    }

    @Test func inspectCountsNoRecordBehindALink() throws {
        try CLIStore.with { store in
            let reproduction = try Reproduction(store)
            defer { reproduction.removeOutside() }
            let run = dao("inspect", store.path)
            #expect(!run.output.contains("User"), "\(run.output)")
            #expect(!run.output.contains("outside"))
        }
    }

    @Test func aSymlinkedLockFileMakesEveryCommandFailNamingIt() throws {
        try CLIStore.with { store in
            _ = try store.withNotes(1)
            let lockPath = store.path + "/.lock"
            try FileManager.default.removeItem(atPath: lockPath)
            #expect(symlink("/dev/null", lockPath) == 0)
            for command in ["verify", "inspect"] {
                let run = dao(command, store.path)
                #expect(run.status == 1, "\(command)")
                #expect(run.errors.contains("\(lockPath): not a regular file"), "\(command): \(run.errors)")
            }
            let dump = dao("dump", store.path, "Note")
            #expect(dump.status == 1)
            #expect(dump.errors.contains("\(lockPath): not a regular file"))
        }
    }

    @Test func aSymlinkedJournalIsReportedAndNeverRead() throws {
        try CLIStore.with { store in
            _ = try store.withNotes(1)
            let journalPath = store.path + "/.journal"
            try? FileManager.default.removeItem(atPath: journalPath)
            let outside = store.path + "-journal"
            try Journal(directoryName: "^note", entries: [.init(fileName: "n1.json", previousContents: nil)])
                .serialized()
                .write(to: URL(fileURLWithPath: outside))
            defer { _ = unlink(outside) }
            #expect(symlink(outside, journalPath) == 0)
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(run.outputLines.first == "\(journalPath): cannot be read: it is not a regular file")
        }
    }

    @Test func theStoresOwnDirectoryMayBeALinkTheUserGives() throws {
        try CLIStore.with { store in
            _ = try store.withNotes(2)
            let alias = store.path + "-alias"
            #expect(symlink(store.path, alias) == 0)
            defer { _ = unlink(alias) }
            let run = dao("verify", alias)
            #expect(run.status == 0, "\(run.output)")
        }
    }
}

/// A second entity for the reproduction: its folder is the linked one.
struct CLIUser: Storable, Equatable {
    static let entityName = "User"
    var id: String
    var name: String
}
