import DAOKit
import DAOKitStoreFormat
import Foundation
import Testing

/// The built `dao` executable, run as a user runs it: what reaches the terminal and the exit
/// status, which the in-process tests cannot see (`exit`, stream flushing, traps).
@Suite("CLI executable")
struct CLIExecutableTests {
    @Test func theExecutablePrintsItsHelpAndExitsZero() throws {
        let run = try daoBinary(["--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("Usage: dao <command> [arguments]"))
        #expect(run.errors.isEmpty)
    }

    @Test(
        "wrong arguments are one line on standard error and exit status 2, never a trap",
        arguments: [
            [], ["inspect", "/nonexistent/daokit-store"], ["dump", "/nonexistent/daokit-store", "Note"], ["verify"],
            ["demo", "--fast"],
        ])
    func wrongArgumentsAreOneLineAndStatusTwo(_ arguments: [String]) throws {
        let run = try daoBinary(arguments)
        #expect(run.status == 2, "\(arguments): \(run.errors)")
        #expect(run.output.isEmpty)
        #expect(run.errorLines.count == 1, "\(run.errors)")
        #expect(run.errors.hasPrefix("dao"))
    }

    @Test func theExecutableReportsAStoreDamagedByHandWithStatusOne() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(3)
            let truncated = store.notePath("n0", in: context)
            let data = try Data(contentsOf: URL(fileURLWithPath: truncated))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: truncated))
            let renamed = store.path + "/^note/renamed.json"
            try FileManager.default.moveItem(atPath: store.notePath("n1", in: context), toPath: renamed)
            try store.writeUnfinishedJournal(entityDirectory: "^note", entries: [("n2.json", nil)])

            let run = try daoBinary(["verify", store.path])
            #expect(run.status == 1)
            #expect(run.errors.isEmpty)
            #expect(run.outputLines.count == 4)
            #expect(
                run.outputLines.contains {
                    $0.hasPrefix(store.path + "/.journal: a batch of 1 change to Note did not finish")
                })
            #expect(run.outputLines.contains { $0.hasPrefix(truncated + ": truncated") })
            #expect(
                run.outputLines.contains {
                    $0.hasPrefix(renamed + ": the file name does not match the key inside, \"n1\"")
                })
        }
    }

    @Test func aReaderThatStopsEarlyEndsTheOutputNotTheProcess() throws {
        try CLIStore.with { store in
            _ = try store.withNotes(200)
            let process = Process()
            process.executableURL = try daoExecutableURL()
            process.arguments = ["dump", store.path, "Note"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            // The reader is gone before the first write, as with `dao dump … | head -c 0`.
            try output.fileHandleForReading.close()
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationReason == .exit, "killed by signal \(process.terminationStatus)")
            #expect(process.terminationStatus == 0)
        }
    }

    @Test func theExecutableRunsTheDemoInAFreshDirectoryThatThenVerifiesClean() throws {
        let run = try daoBinary(["demo"])
        #expect(run.status == 0, "\(run.errors)")
        let first = try #require(run.outputLines.first)
        let path = String(first.dropFirst("Store: ".count).prefix { $0 != " " })
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(run.outputLines.contains { $0.hasPrefix("4. What a conversion costs") })
        let verify = try daoBinary(["verify", path])
        #expect(verify.status == 0)
        #expect(
            verify.outputLines == [
                "OK: \(path) is sound (16 records of 3 entity types checked, envelopes only: entities are not decoded)"
            ])
    }
}
