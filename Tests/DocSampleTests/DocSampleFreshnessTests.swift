// The generated sample tests (Generated/, and the two integration packages' Generated/ folders)
// are what `swift run generate-doc-samples` writes from the documents now: editing a sample
// without running the command fails here, so no document's samples go untested.
import DocSampleGenerator
import Foundation
import Testing

@Suite("Generated doc-sample tests are up to date")
struct DocSampleFreshnessTests {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everyGeneratedFileIsWhatTheGeneratorWritesFromItsDocument() throws {
        let files = try DocSampleGenerator.generatedFiles(root: root)
        #expect(
            files.keys.contains("\(DocSampleGenerator.coreDirectory)/README.swift"), "README.md has no compiled sample")
        for (path, contents) in files {
            let onDisk = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            #expect(onDisk == contents, "\(path) is stale: run `swift run generate-doc-samples`")
        }
    }

    @Test func noGeneratedFileOutlivesItsDocument() throws {
        let files = try DocSampleGenerator.generatedFiles(root: root)
        for directory in DocSampleGenerator.outputDirectories {
            let names =
                (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(directory).path))
                ?? []
            for name in names {
                #expect(
                    files["\(directory)/\(name)"] != nil,
                    "\(directory)/\(name) has no document: run `swift run generate-doc-samples`")
            }
        }
    }
}

@Suite("Doc-sample extraction follows the documented rules")
struct DocSampleExtractionTests {
    @Test func declarationsGoToFileScopeAsPrivateAndStatementsRunInOrder() throws {
        let document = try DocSampleGenerator.parse(
            """
            Text.

            ```swift
            import DAOKit

            struct Note: Codable { var id: Int }
            extension Note: Equatable {}
            let note = Note(id: 1)
            ```

            ```text
            not swift { 
            ```

            ```swift
            public func show(_ note: Note) {}
            let (a, b) = (note, 2)
            ```
            """, path: "Doc.md")
        #expect(document.blocks.map(\.line) == [4, 16])
        let (directory, contents) = try DocSampleGenerator.generate(document)
        #expect(directory == DocSampleGenerator.coreDirectory)
        #expect(contents.contains("import DAOKit\nimport Foundation\nimport Testing\n"))
        #expect(contents.contains("\nprivate struct Note: Codable { var id: Int }\n"))
        #expect(contents.contains("\nextension Note: Equatable {}\n"))
        #expect(contents.contains("\npublic func show(_ note: Note) {}\n"))
        #expect(contents.contains("func docSamples() throws {\n    // Doc.md:4\n    let note = Note(id: 1)\n"))
        #expect(contents.contains("    _ = note\n    _ = a\n    _ = b\n}\n"))
        #expect(!contents.contains("not swift"))
        #expect(!contents.contains("let folder"))
    }

    @Test func aDocumentThatAwaitsOrUsesTheFolderGetsAnAsyncTestWithAFolder() throws {
        let document = try DocSampleGenerator.parse(
            """
            ```swift
            import DAOKitPostgres
            let url = folder.appendingPathComponent("store")
            try await Task.sleep(for: .zero)
            ```
            """, path: "Sources/DAOKit/DAOKit.docc/Async.md")
        let (directory, contents) = try DocSampleGenerator.generate(document)
        #expect(directory == DocSampleGenerator.postgresDirectory)
        #expect(contents.contains("func asyncSamples() async throws {"))
        #expect(contents.contains("    let folder = FileManager.default.temporaryDirectory"))
    }

    @Test func serverFrameworksGoToTheServerPackageAndManifestsAreNotCompiled() throws {
        let document = try DocSampleGenerator.parse(
            """
            ```swift manifest
            let package = Package(name: "X")
            ```
            ```swift
            import Hummingbird
            func routes() {}
            ```
            """, path: "Servers.md")
        #expect(document.manifestBlocks == 1 && document.blocks.count == 1)
        #expect(try DocSampleGenerator.generate(document).directory == DocSampleGenerator.serverDirectory)
    }

    @Test func anUnclosedBlockOrAnUnknownInfoStringIsAnErrorNamingTheLine() {
        #expect(throws: DocSampleError.self) { try DocSampleGenerator.parse("a\n```swift\nlet x = 1\n", path: "D.md") }
        do {
            _ = try DocSampleGenerator.parse("```swift run\nlet x = 1\n```\n", path: "D.md")
            Issue.record("an unknown info string was accepted")
        } catch let error as DocSampleError {
            #expect(error.description.hasPrefix("D.md:1: unknown info string"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func unbalancedBracesAreAnError() throws {
        let document = try DocSampleGenerator.parse("```swift\nfunc f() {\n```\n", path: "D.md")
        #expect(throws: DocSampleError.self) { try DocSampleGenerator.generate(document) }
    }

    @Test func bracesInStringsAndCommentsDoNotCount() {
        #expect(DocSampleGenerator.nesting(of: #"let s = "{ \(x) [" // ("#) == 0)
        #expect(DocSampleGenerator.nesting(of: #"print("\(f(a, { 1 }))") {"#) == 1)
    }
}
