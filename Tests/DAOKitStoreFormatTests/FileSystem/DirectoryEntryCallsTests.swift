import DAOKitStoreFormat
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
    /// A store root holding `folder/`, a confined file system over it with `folder` open, and
    /// beside the root `outside/file`.
    private struct Tree {
        let root: String
        let outside: String
        let files: any FileSystem
        let folder: Int32

        init() throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("daokit-entries-\(UUID().uuidString)").path
            root = base + "/root"
            outside = base + "/outside"
            for directory in [root + "/folder", outside] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            try Data("outside".utf8).write(to: URL(fileURLWithPath: outside + "/file"))
            files = try POSIXFileSystem().confined(to: root)
            folder = try files.open(root + "/folder", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0)
        }

        func remove() {
            try? files.close(folder, path: root + "/folder")
            try? FileManager.default.removeItem(atPath: (root as NSString).deletingLastPathComponent)
        }

        func path(_ name: String) -> String { root + "/folder/" + name }

        var outsideText: String { (try? String(contentsOfFile: outside + "/file", encoding: .utf8)) ?? "<gone>" }
    }

    private func with(_ body: (Tree) throws -> Void) throws {
        let tree = try Tree()
        defer { tree.remove() }
        try body(tree)
    }

    @Test func aFileIsCreatedRenamedReadRewrittenAndRemovedByName() throws {
        try with { tree in
            try tree.files.writeFile(".tmp", in: tree.folder, path: tree.path(".tmp"), Data("first".utf8),
                                     flags: O_WRONLY | O_CREAT | O_EXCL, sync: true)
            try tree.files.rename(".tmp", to: "record", in: tree.folder, path: tree.path("record"))
            #expect(try tree.files.readContents(of: "record", in: tree.folder, path: tree.path("record")) == .bytes(Data("first".utf8)))
            try tree.files.overwriteFile("record", in: tree.folder, path: tree.path("record"), Data("2nd".utf8), previousLength: 5)
            #expect(try String(contentsOfFile: tree.path("record"), encoding: .utf8) == "2nd")
            try tree.files.unlinkIfPresent("record", in: tree.folder, path: tree.path("record"))
            try tree.files.unlinkIfPresent("record", in: tree.folder, path: tree.path("record"))
            #expect(try tree.files.readContents(of: "record", in: tree.folder, path: tree.path("record")) == .absent)
            #expect(try tree.files.contentsOfDirectory(tree.root + "/folder").isEmpty)
        }
    }

    @Test func aLinkAsTheEntryIsNeitherReadNorWrittenThrough() throws {
        try with { tree in
            #expect(symlink(tree.outside + "/file", tree.path("link")) == 0)
            #expect(try tree.files.readContents(of: "link", in: tree.folder, path: tree.path("link")) == .notRegularFile)
            let overwrite = try #require(throws: FileSystemError.self) {
                try tree.files.overwriteFile("link", in: tree.folder, path: tree.path("link"), Data("x".utf8), previousLength: nil)
            }
            #expect(overwrite.isNotRegularFile)
            #expect(overwrite.path == tree.path("link"))
            let create = try #require(throws: FileSystemError.self) {
                try tree.files.writeFile("link", in: tree.folder, path: tree.path("link"), Data("x".utf8), flags: O_WRONLY | O_CREAT, sync: false)
            }
            #expect(create.code == ELOOP)
            #expect(tree.outsideText == "outside")
        }
    }

    @Test func renameAndUnlinkActOnALinkItself() throws {
        try with { tree in
            #expect(symlink(tree.outside + "/file", tree.path("link")) == 0)
            try tree.files.rename("link", to: "moved", in: tree.folder, path: tree.path("moved"))
            let status = try #require(try tree.files.status(atPath: tree.path("moved")))
            #expect(status.isSymbolicLink)
            try tree.files.unlink("moved", in: tree.folder, path: tree.path("moved"))
            #expect(try tree.files.contentsOfDirectory(tree.root + "/folder").isEmpty)
            #expect(tree.outsideText == "outside")
        }
    }

    @Test("A name that is not one component is refused, nothing done", arguments: ["", ".", "..", "../outside", "sub/file", "/etc/passwd"])
    func aNameThatIsNotOneComponentIsRefused(_ name: String) throws {
        try with { tree in
            let open = try #require(throws: FileSystemError.self) {
                try tree.files.open(name, in: tree.folder, O_WRONLY | O_CREAT, 0o644, path: tree.path(name))
            }
            #expect(open.code == EXDEV)
            let rename = try #require(throws: FileSystemError.self) {
                try tree.files.rename(name, to: "x", in: tree.folder, path: tree.path("x"))
            }
            #expect(rename.code == EXDEV)
            #expect(throws: FileSystemError.self) { try tree.files.rename("x", to: name, in: tree.folder, path: tree.path(name)) }
            let unlink = try #require(throws: FileSystemError.self) { try tree.files.unlink(name, in: tree.folder, path: tree.path(name)) }
            #expect(unlink.code == EXDEV)
            #expect(try tree.files.contentsOfDirectory(tree.root + "/folder").isEmpty)
            #expect(tree.outsideText == "outside")
        }
    }

    @Test func aFailedCallNamesTheEntrysWholePath() throws {
        try with { tree in
            let error = try #require(throws: FileSystemError.self) {
                try tree.files.rename("missing", to: "other", in: tree.folder, path: tree.path("other"))
            }
            #expect(error.code == ENOENT)
            #expect(error.path == tree.path("other"))
        }
    }
}
