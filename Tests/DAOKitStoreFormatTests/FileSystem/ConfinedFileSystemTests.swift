import DAOKitInternals
import DAOKitStoreFormat
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``POSIXFileSystem/confined(to:)``: below the root no call follows a symbolic link; calls that
/// act on an entry itself act on the link; the root itself is opened as the user gave it.
@Suite("Confined file system")
struct ConfinedFileSystemTests {
    /// A ``ConfinedTestTree`` whose `folder/file` holds "inside".
    private func with(_ body: (ConfinedTestTree) throws -> Void) throws {
        try ConfinedTestTree.with { tree in
            try Data("inside".utf8).write(to: URL(fileURLWithPath: tree.path("folder/file")))
            try body(tree)
        }
    }

    @Test func aRegularPathReadsAsUsual() throws {
        try with { tree in
            guard case .bytes(let data) = try tree.files.readContents(of: tree.root + "/folder/file") else {
                Issue.record("not read")
                return
            }
            #expect(String(decoding: data, as: UTF8.self) == "inside")
            #expect(try tree.files.contentsOfDirectory(tree.root).sorted() == ["folder"])
        }
    }

    @Test func aLinkedFolderOnTheWayIsRefusedNamingTheFolder() throws {
        try with { tree in
            tree.link("linked", to: tree.outside)
            let error = try #require(throws: FileSystemError.self) {
                try tree.files.readContents(of: tree.root + "/linked/file")
            }
            #expect(error.refusal == .notADirectory)
            #expect(error.path == tree.root + "/linked")
            let write = try #require(throws: FileSystemError.self) {
                try tree.files.writeFile(tree.root + "/linked/new", Data("x".utf8), sync: false)
            }
            #expect(write.path == tree.root + "/linked")
            #expect(!FileManager.default.fileExists(atPath: tree.outside + "/new"))
        }
    }

    @Test func listingALinkedFolderIsRefusedNamingIt() throws {
        try with { tree in
            tree.link("linked", to: tree.outside)
            let error = try #require(throws: FileSystemError.self) {
                try tree.files.contentsOfDirectory(tree.root + "/linked")
            }
            #expect(error.refusal == .notADirectory)
            #expect(error.path == tree.root + "/linked")
        }
    }

    @Test func aLinkedFileIsNeitherReadNorWrittenThrough() throws {
        try with { tree in
            tree.link("folder/link", to: tree.outside + "/file")
            #expect(try tree.files.readContents(of: tree.root + "/folder/link") == .notRegularFile)
            let error = try #require(throws: FileSystemError.self) {
                try tree.files.writeFile(
                    tree.root + "/folder/link", Data("x".utf8), flags: O_WRONLY | O_CREAT | O_NOFOLLOW, sync: false)
            }
            #expect(error.code == ELOOP)
            #expect(tree.outsideText == "outside")
        }
    }

    @Test func callsOnAnEntryActOnTheLinkItself() throws {
        try with { tree in
            tree.link("folder/link", to: tree.outside + "/file")
            let status = try #require(try tree.files.status(atPath: tree.root + "/folder/link"))
            #expect(status.isSymbolicLink && !status.isRegularFile && !status.isDirectory)
            try tree.files.rename(tree.root + "/folder/link", tree.root + "/folder/moved")
            try tree.files.unlink(tree.root + "/folder/moved")
            #expect(try tree.files.status(atPath: tree.root + "/folder/moved") == nil)
            #expect(tree.outsideText == "outside")
        }
    }

    @Test func nothingIsCreatedOrRemovedThroughALinkedFolder() throws {
        try with { tree in
            tree.link("linked", to: tree.outside)
            #expect(throws: FileSystemError.self) { try tree.files.makeDirectory(tree.root + "/linked/sub") }
            #expect(throws: FileSystemError.self) { try tree.files.unlink(tree.root + "/linked/file") }
            #expect(throws: FileSystemError.self) {
                try tree.files.rename(tree.root + "/folder/file", tree.root + "/linked/file")
            }
            #expect(!FileManager.default.fileExists(atPath: tree.outside + "/sub"))
            #expect(tree.outsideText == "outside")
        }
    }

    @Test func aRenameWithinALinkedFolderIsRefusedNamingItAndMovesNothingOutside() throws {
        try with { tree in
            tree.link("linked", to: tree.outside)
            let error = try #require(throws: FileSystemError.self) {
                try tree.files.rename(tree.root + "/linked/file", tree.root + "/linked/moved")
            }
            #expect(error.refusal == .notADirectory)
            #expect(error.path == tree.root + "/linked")
            #expect(tree.outsideText == "outside")
            #expect(!FileManager.default.fileExists(atPath: tree.outside + "/moved"))
        }
    }

    @Test func renamesMoveWithinAFolderAcrossFoldersAndAtTheRoot() throws {
        try with { tree in
            try FileManager.default.createDirectory(atPath: tree.root + "/other", withIntermediateDirectories: false)
            try tree.files.rename(tree.root + "/folder/file", tree.root + "/folder/renamed")
            try tree.files.rename(tree.root + "/folder/renamed", tree.root + "/other/file")
            try tree.files.rename(tree.root + "/other/file", tree.root + "/top")
            try tree.files.rename(tree.root + "/top", tree.root + "/top2")
            #expect(try tree.files.contentsOfDirectory(tree.root + "/folder").isEmpty)
            #expect(try tree.files.contentsOfDirectory(tree.root + "/other").isEmpty)
            #expect(try tree.files.contentsOfDirectory(tree.root).sorted() == ["folder", "other", "top2"])
        }
    }

    @Test func foldersWhoseNamesDifferOnlyInUnicodeNormalizationAreDifferentFolders() throws {
        try with { tree in
            // "é" precomposed and decomposed: equal as Swift strings, two folders to the system.
            let composed = "caf\u{E9}"
            let decomposed = "cafe\u{301}"
            for name in [composed, decomposed] {
                try FileManager.default.createDirectory(
                    atPath: tree.root + "/" + name, withIntermediateDirectories: false)
            }
            try Data("x".utf8).write(to: URL(fileURLWithPath: tree.root + "/" + composed + "/file"))
            try tree.files.rename(tree.root + "/" + composed + "/file", tree.root + "/" + decomposed + "/file")
            #expect(try tree.files.contentsOfDirectory(tree.root + "/" + composed).isEmpty)
            #expect(try tree.files.contentsOfDirectory(tree.root + "/" + decomposed) == ["file"])
        }
    }

    @Test func aFIFOOnTheWayIsRefusedWithoutBlocking() throws {
        try with { tree in
            #expect(mkfifo(tree.root + "/pipe", 0o644) == 0)
            let error = try #require(throws: FileSystemError.self) {
                try tree.files.readContents(of: tree.root + "/pipe/file")
            }
            #expect(error.refusal == .notADirectory)
            #expect(error.path == tree.root + "/pipe")
        }
    }

    @Test func aRegularFileOnTheWayIsAnOrdinaryErrorNamingIt() throws {
        try with { tree in
            let error = try #require(throws: FileSystemError.self) {
                try tree.files.readContents(of: tree.root + "/folder/file/x")
            }
            #expect(error.code == ENOTDIR)
            #expect(error.refusal == nil)
        }
    }

    @Test func aPathClimbingOutOfTheRootIsRefused() throws {
        try with { tree in
            #expect(throws: FileSystemError.self) {
                try tree.files.readContents(of: tree.root + "/folder/../../outside/file")
            }
        }
    }

    @Test func theRootItselfMayBeALink() throws {
        try with { tree in
            let alias = tree.root + "-alias"
            #expect(symlink(tree.root, alias) == 0)
            let files = try POSIXFileSystem().confined(to: alias)
            guard case .bytes = try files.readContents(of: alias + "/folder/file") else {
                Issue.record("not read through the root's alias")
                return
            }
        }
    }

    @Test func aMissingRootOrOneThatIsAFileCannotBeConfinedTo() throws {
        try with { tree in
            #expect(throws: FileSystemError.self) { try POSIXFileSystem().confined(to: tree.root + "/missing") }
            let error = try #require(throws: FileSystemError.self) {
                try POSIXFileSystem().confined(to: tree.root + "/folder/file")
            }
            #expect(error.code == ENOTDIR)
        }
    }
}
