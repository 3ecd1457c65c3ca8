import DAOKit
import Foundation
import Testing

/// `inspect`, `dump` and `verify` refuse a directory that is not a file store — no `.lock`, no
/// `.journal`, and not only record folders — with one line and exit status 2 (issue 15), rather
/// than reporting a temporary directory with one stray record as a store with thousands of
/// problems.
@Suite("CLI directories that are not stores")
struct CLINotAStoreTests {
    static let commands: [[String]] = [["inspect"], ["verify"], ["dump", "-", "CLINote"]]

    /// The arguments of `command` for `directory` (`-` stands for the directory).
    private static func arguments(_ command: [String], _ directory: String) -> [String] {
        command.count == 1 ? [command[0], directory] : [command[0], directory] + command.dropFirst(2)
    }

    /// Like the system's temporary directory: other people's files and folders, and one folder
    /// that happens to hold a record file.
    @Test(arguments: commands)
    func aDirectoryWithAStrayRecordAmongOtherThingsIsNotAStore(_ command: [String]) throws {
        try CLIStore.with { store in
            try CLIStore.with { real in
                let context = try real.withNotes(1)
                try FileManager.default.createDirectory(
                    at: store.url.appendingPathComponent("^note"), withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    atPath: real.notePath("n0", in: context), toPath: store.path + "/^note/n0.json")
            }
            try store.write("x", to: "session.log")
            try FileManager.default.createDirectory(
                at: store.url.appendingPathComponent("Build-Cache"), withIntermediateDirectories: true)
            let before = try store.snapshot()
            daoRun(Self.arguments(command, store.path)).expectUsageError(
                startingWith:
                    "dao \(command[0]): \(store.path) is not a DAOKit file store (no .lock file, no .journal, and 2 entries that no store holds, such as Build-Cache)"
            )
            #expect(try store.snapshot() == before)
        }
    }

    @Test(arguments: commands)
    func aDirectoryOfFoldersWithoutRecordsIsNotAStore(_ command: [String]) throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(
                at: store.url.appendingPathComponent("photos"), withIntermediateDirectories: true)
            daoRun(Self.arguments(command, store.path)).expectUsageError(
                startingWith:
                    "dao \(command[0]): \(store.path) is not a DAOKit file store (no .lock file, no .journal and no record folders)"
            )
        }
    }

    /// A store copied without its dot-files holds nothing but record folders: still a store.
    @Test func aStoreCopiedWithoutItsDotFilesIsStillAStore() throws {
        try CLIStore.with { store in
            try store.withNotes(3)
            try FileManager.default.removeItem(atPath: store.path + "/.lock")
            try? FileManager.default.removeItem(atPath: store.path + "/.journal")
            let run = dao("verify", store.path)
            #expect(run.status == 0, "\(run.errors)")
            #expect(
                run.outputLines.last?.hasPrefix("OK: \(store.path) is sound (3 records") == true, "\(run.outputLines)")
        }
    }

    /// A journal alone marks a store (its lock file may have been removed by hand).
    @Test func aJournalAloneMarksAStore() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(at: store.url, withIntermediateDirectories: true)
            try store.write("", to: ".journal")
            try store.write("x", to: "notes.txt")
            let run = dao("inspect", store.path)
            #expect(run.status == 0, "\(run.errors)")
        }
    }
}
