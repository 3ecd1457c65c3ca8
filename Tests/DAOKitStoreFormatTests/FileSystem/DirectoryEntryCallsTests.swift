import DAOKitInternals
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The calls on an entry of a directory already open (``FileSystem/open(_:in:_:_:path:)`` and its
/// kin), through which the store writes records: the name is one component, a link there is never
/// followed, and calls that act on an entry act on the link itself.
@Suite("Calls on the entries of an open directory")
struct DirectoryEntryCallsTests {
    /// A ``ConfinedTestTree`` with its `folder` open, and the whole path of an entry of it.
    private func with(_ body: (ConfinedTestTree, Int32, (String) -> String) throws -> Void) throws {
        try ConfinedTestTree.with { tree in
            let folder = try tree.files.open(tree.path("folder"), O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0)
            defer { try? tree.files.close(folder, path: tree.path("folder")) }
            try body(tree, folder) { tree.path("folder/" + $0) }
        }
    }

    @Test func aFileIsCreatedRenamedReadRewrittenAndRemovedByName() throws {
        try with { tree, folder, path in
            try tree.files.writeFile(
                ".tmp", in: folder, path: path(".tmp"), Data("first".utf8),
                flags: O_WRONLY | O_CREAT | O_EXCL, sync: true)
            try tree.files.rename(".tmp", to: "record", in: folder, path: path("record"))
            #expect(
                try tree.files.readContents(of: "record", in: folder, path: path("record"))
                    == .bytes(Data("first".utf8)))
            try tree.files.overwriteFile(
                "record", in: folder, path: path("record"), Data("2nd".utf8), previousLength: 5)
            #expect(try String(contentsOfFile: path("record"), encoding: .utf8) == "2nd")
            try tree.files.unlinkIfPresent("record", in: folder, path: path("record"))
            try tree.files.unlinkIfPresent("record", in: folder, path: path("record"))
            #expect(try tree.files.readContents(of: "record", in: folder, path: path("record")) == .absent)
            #expect(try tree.files.contentsOfDirectory(tree.path("folder")).isEmpty)
        }
    }

    @Test func aLinkAsTheEntryIsNeitherReadNorWrittenThrough() throws {
        try with { tree, folder, path in
            tree.link("folder/link", to: tree.outside + "/file")
            #expect(try tree.files.readContents(of: "link", in: folder, path: path("link")) == .notRegularFile)
            let overwrite = try #require(throws: FileSystemError.self) {
                try tree.files.overwriteFile(
                    "link", in: folder, path: path("link"), Data("x".utf8), previousLength: nil)
            }
            #expect(overwrite.isNotRegularFile)
            #expect(overwrite.path == path("link"))
            let create = try #require(throws: FileSystemError.self) {
                try tree.files.writeFile(
                    "link", in: folder, path: path("link"), Data("x".utf8), flags: O_WRONLY | O_CREAT, sync: false)
            }
            #expect(create.code == ELOOP)
            #expect(tree.outsideText == "outside")
        }
    }

    @Test func renameAndUnlinkActOnALinkItself() throws {
        try with { tree, folder, path in
            tree.link("folder/link", to: tree.outside + "/file")
            try tree.files.rename("link", to: "moved", in: folder, path: path("moved"))
            let status = try #require(try tree.files.status(atPath: path("moved")))
            #expect(status.isSymbolicLink)
            try tree.files.unlink("moved", in: folder, path: path("moved"))
            #expect(try tree.files.contentsOfDirectory(tree.path("folder")).isEmpty)
            #expect(tree.outsideText == "outside")
        }
    }

    @Test(
        "A name that is not one component is refused, nothing done",
        arguments: ["", ".", "..", "../outside", "sub/file", "/etc/passwd"])
    func aNameThatIsNotOneComponentIsRefused(_ name: String) throws {
        try with { tree, folder, path in
            let open = try #require(throws: FileSystemError.self) {
                try tree.files.open(name, in: folder, O_WRONLY | O_CREAT, 0o644, path: path(name))
            }
            #expect(open.code == EXDEV)
            let rename = try #require(throws: FileSystemError.self) {
                try tree.files.rename(name, to: "x", in: folder, path: path("x"))
            }
            #expect(rename.code == EXDEV)
            #expect(throws: FileSystemError.self) { try tree.files.rename("x", to: name, in: folder, path: path(name)) }
            let unlink = try #require(throws: FileSystemError.self) {
                try tree.files.unlink(name, in: folder, path: path(name))
            }
            #expect(unlink.code == EXDEV)
            #expect(try tree.files.contentsOfDirectory(tree.path("folder")).isEmpty)
            #expect(tree.outsideText == "outside")
        }
    }

    @Test func aFailedCallNamesTheEntrysWholePath() throws {
        try with { tree, folder, path in
            let error = try #require(throws: FileSystemError.self) {
                try tree.files.rename("missing", to: "other", in: folder, path: path("other"))
            }
            #expect(error.code == ENOENT)
            #expect(error.path == path("other"))
        }
    }
}
