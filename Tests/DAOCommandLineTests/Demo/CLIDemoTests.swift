import DAOKit
import Foundation
import Testing

@testable import DAOCommandLine

@Suite("CLI demo")
struct CLIDemoTests {
    /// Runs the demo with a short timing comparison, so that the tests that are not about the
    /// comparison stay quick.
    private func quickDemo(_ directory: String?, build: BuildConfiguration = .release) throws -> CLIRun {
        final class Captured {
            var output = ""
            var errors = ""
        }
        let captured = Captured()
        let console = Console(output: { captured.output += $0 }, error: { captured.errors += $0 })
        let status = try DemoCommand(
            console: console, comparisonBudget: .milliseconds(10), comparisonSize: 24, build: build
        )
        .run(directory: directory)
        return CLIRun(status: status, output: captured.output, errors: captured.errors)
    }

    @Test func demoBuildsTheMessengerStoreAndNarratesEachStep() throws {
        try CLIStore.with { store in
            let run = dao("demo", store.path)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.errors.isEmpty)
            let lines = run.outputLines
            #expect(lines.first == "Store: \(store.path)  (new)")
            for heading in [
                "1. Saving", "2. Queries", "3. Updates and erases", "4. What a conversion costs",
                "Look inside the store:",
            ] {
                #expect(lines.contains { $0.hasPrefix(heading) }, "no \(heading)")
            }
            // The unread messages of Work come sorted by date, not by id (8 was sent before 7).
            let work = try #require(lines.firstIndex { $0.contains("unread in Work") })
            #expect(lines[work + 1].hasPrefix("     09:05  Cleo  Can you review"))
            #expect(lines[work + 2].hasPrefix("     09:10  Cleo  It touches"))
            #expect(lines.contains("   pinned dialogs: Family, Work"))
            #expect(lines.contains("   counts: 3 users, 4 dialogs, 12 messages (6 unread)"))
            #expect(
                lines.contains {
                    $0.hasPrefix("   an observer of that count (observeCount) received the change: ")
                        && $0.hasSuffix(" → 0")
                })
            #expect(lines.contains("   pinned dialogs: Book club, Family, Work"))
            #expect(lines.contains("   counts: 3 users, 3 dialogs, 10 messages (3 unread)"))
            #expect(
                lines.contains(
                    "   create(message 3) again → StorageError: Message \"3\": an entity with this id already exists"))
            #expect(lines.contains { $0.contains("→ MappingError: ") && $0.contains("sendAt") })
            // Timings only where they mean something (see the tests of both builds below).
            #expect(lines.contains { $0.contains(" per message ") } == (BuildConfiguration.current == .release))
            #expect(lines.last == "   swift run dao verify \(store.path)")

            // What the demo says it stored is what the store holds, and the store is sound.
            #expect(dao("verify", store.path).status == 0)
            #expect(try foundationJSON(dao("dump", store.path, "Message").output).count == 10)
            #expect(
                try foundationJSON(dao("dump", store.path, "Dialog").output).keys.sorted() == [
                    "book-club", "family", "work",
                ])
            let reread = try Messenger.MessagesDao(context: store.context()).read(id: 9)
            #expect(reread?.attachment == URL(string: "https://example.org/covers/left-hand.jpg"))
        }
    }

    @Test func aReleaseBuildTimesTheThreeVariantsAndComparesThem() throws {
        try CLIStore.with { store in
            let lines = try quickDemo(store.path, build: .release).outputLines
            for variant in ["hand-written translator", "EntityMapper", "JSON round trip"] {
                #expect(
                    lines.contains { $0.hasPrefix("   \(variant) ") && $0.contains(" per message ") },
                    "no timing for \(variant)")
            }
            #expect(lines.contains { $0.contains("EntityMapper needs no translator code") })
            #expect(!lines.contains { $0.contains("debug build") })
        }
    }

    @Test func aDebugBuildShowsNoTimingsAndSaysHowToGetReleaseNumbers() throws {
        try CLIStore.with { store in
            let lines = try quickDemo(store.path, build: .debug).outputLines
            let heading = try #require(lines.firstIndex { $0.hasPrefix("4. What a conversion costs") })
            #expect(lines[heading] == "4. What a conversion costs: not timed in this debug build")
            #expect(lines.contains("   swift run -c release dao demo"))
            #expect(!lines.contains { $0.contains("×") || $0.contains(" per message") || $0.contains("faster") })
        }
    }

    @Test func theBuildIsDetectedFromHowTheToolWasCompiled() {
        #if DEBUG
            #expect(BuildConfiguration.current == .debug)
        #else
            #expect(BuildConfiguration.current == .release)
        #endif
    }

    @Test func demoRunAgainInTheSameDirectoryReplacesItsDataWithTheSameResult() throws {
        try CLIStore.with { store in
            let first = try quickDemo(store.path)
            let second = try quickDemo(store.path)
            #expect(first.status == 0 && second.status == 0)
            #expect(second.outputLines.first == "Store: \(store.path)  (an earlier demo's data is replaced)")
            // Everything but the first line and the timings is the same.
            let narration = { (run: CLIRun) in run.outputLines.dropFirst().prefix { !$0.hasPrefix("4. ") } }
            #expect(narration(first) == narration(second))
            #expect(try foundationJSON(dao("dump", store.path, "Message").output).count == 10)
        }
    }

    @Test func demoWithoutADirectoryUsesAFreshTemporaryDirectoryAndPrintsIt() throws {
        let run = try quickDemo(nil)
        #expect(run.status == 0)
        let first = try #require(run.outputLines.first)
        #expect(first.hasSuffix("  (a new temporary directory; delete it when you are done)"))
        let path = String(first.dropFirst("Store: ".count).prefix { $0 != " " })
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(path.hasPrefix(FileManager.default.temporaryDirectory.path))
        #expect(dao("verify", path).status == 0)
    }

    @Test func demoRefusesADirectoryHoldingOtherFiles() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(at: store.url, withIntermediateDirectories: true)
            try store.write("precious", to: "thesis.txt")
            dao("demo", store.path).expectUsageError(
                startingWith: "dao demo: \(store.path) holds other files ('thesis.txt')")
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.path) == ["thesis.txt"])
        }
    }

    @Test func demoRefusesAFile() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(at: store.url, withIntermediateDirectories: true)
            try store.write("x", to: "file")
            dao("demo", store.path + "/file").expectUsageError(
                startingWith: "dao demo: not a directory: \(store.path)/file")
        }
    }

    @Test func demoThatCannotCreateItsStoreIsAUsageError() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(at: store.url, withIntermediateDirectories: true)
            try store.write("x", to: "file")
            dao("demo", store.path + "/file/store").expectUsageError(
                startingWith: "dao demo: cannot open a store in \(store.path)/file/store: ")
        }
    }

    @Test func mappingComparisonTimesAllThreeVariantsOnCorrectConversions() throws {
        let comparison = MappingComparison(messages: MessengerSampleData.manyMessages(30), budget: .zero)
        let (timings, rounds) = try comparison.run()
        #expect(timings.map(\.name) == ["hand-written translator", "EntityMapper", "JSON round trip"])
        #expect(rounds == MappingComparison.minimumRounds)
        #expect(timings.allSatisfy { $0.nanosecondsPerMessage > 0 })
    }

    @Test func demoTypesMapStrictlyBothWaysAndAgreeWithTheHandWrittenTranslator() throws {
        let strict = EntityMapper(strict: true)
        for message in MessengerSampleData.messages {
            let entity = try strict.map(message, to: Messenger.MessageEntity.self)
            #expect(entity == MessageTranslator.entity(from: message))
            #expect(try strict.map(entity, to: Messenger.Message.self) == message)
        }
        for dialog in MessengerSampleData.dialogs {
            #expect(
                try strict.map(strict.map(dialog, to: Messenger.DialogEntity.self), to: Messenger.Dialog.self) == dialog
            )
        }
        for user in MessengerSampleData.users {
            #expect(try strict.map(strict.map(user, to: Messenger.UserEntity.self), to: Messenger.User.self) == user)
        }
    }
}
