import Foundation
import Testing

@Suite("CLI arguments and help")
struct CLIArgumentsTests {
    static let commands = ["demo", "inspect", "dump", "verify"]

    @Test("dao --help, -h and help print the overview on standard output", arguments: [["--help"], ["-h"], ["help"]])
    func helpPrintsTheOverviewAndExitsZero(_ arguments: [String]) {
        let run = daoRun(arguments)
        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        #expect(run.output.contains("Usage: dao <command> [arguments]"))
        for command in Self.commands { #expect(run.output.contains("  \(command) "), "overview lacks \(command)") }
    }

    @Test("every command has its own help, however it is asked for", arguments: commands)
    func everyCommandHasItsOwnHelp(_ command: String) {
        for arguments in [[command, "--help"], [command, "-h"], ["help", command], [command, "some-dir", "--help"]] {
            let run = daoRun(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.errors.isEmpty, "\(arguments)")
            #expect(run.output.hasPrefix("Usage: dao \(command)"), "\(arguments): \(run.output)")
        }
    }

    @Test func noArgumentsIsAUsageErrorNamingTheCommands() {
        let run = dao()
        run.expectUsageError(startingWith: "dao: missing command")
        #expect(run.errors.contains("demo, inspect, dump and verify"))
    }

    @Test func anUnknownCommandIsAUsageError() {
        dao("frobnicate").expectUsageError(startingWith: "dao: unknown command 'frobnicate'")
    }

    @Test func anUnknownOptionBeforeTheCommandIsAUsageError() {
        dao("--verbose", "inspect").expectUsageError(startingWith: "dao: unknown option '--verbose'")
    }

    @Test func helpForAnUnknownCommandIsAUsageError() {
        dao("help", "frobnicate").expectUsageError(startingWith: "dao help: unknown command 'frobnicate'")
    }

    @Test("an unknown option after a command is a usage error", arguments: commands)
    func anUnknownOptionAfterACommandIsAUsageError(_ command: String) {
        daoRun([command, "--force", "/tmp"]).expectUsageError(startingWith: "dao \(command): unknown option '--force'")
    }

    @Test(
        "a missing argument is a usage error that shows the usage",
        arguments: [(["inspect"], "DIR"), (["verify"], "DIR"), (["dump"], "DIR"), (["dump", "/tmp"], "ENTITY")])
    func aMissingArgumentIsAUsageError(_ arguments: [String], _ missing: String) {
        let run = daoRun(arguments)
        run.expectUsageError(startingWith: "dao \(arguments[0]): missing \(missing); usage: dao \(arguments[0])")
    }

    @Test(
        "an extra argument is a usage error",
        arguments: [
            ["demo", "a", "b"], ["inspect", "a", "b"], ["verify", "a", "b"], ["dump", "a", "Note", "k", "extra"],
        ])
    func anExtraArgumentIsAUsageError(_ arguments: [String]) {
        let run = daoRun(arguments)
        run.expectUsageError(startingWith: "dao \(arguments[0]): unexpected argument '\(arguments.last ?? "")'")
    }

    @Test func doubleDashLetsADirectoryNameStartWithADash() throws {
        try CLIStore.with { store in
            try store.withNotes(1)
            let link = FileManager.default.currentDirectoryPath + "/-cli-test-\(UUID().uuidString)"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store.path)
            defer { try? FileManager.default.removeItem(atPath: link) }
            let relative = (link as NSString).lastPathComponent
            let run = dao("verify", "--", relative)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasPrefix("OK: \(relative) is sound"))
            dao("verify", relative).expectUsageError(startingWith: "dao verify: unknown option '\(relative)'")
        }
    }
}
