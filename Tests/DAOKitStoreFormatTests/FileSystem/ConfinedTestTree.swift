import DAOKitStoreFormat
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store root holding `folder/`, a file system confined to it, and beside the root
/// `outside/file` holding "outside": what a link planted in the root would reach, and what no
/// call may read, change or remove.
struct ConfinedTestTree {
    let root: String
    let outside: String
    let files: any FileSystem

    private init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("daokit-confined-\(UUID().uuidString)")
            .path
        root = base + "/root"
        outside = base + "/outside"
        for directory in [root + "/folder", outside] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try Data("outside".utf8).write(to: URL(fileURLWithPath: outside + "/file"))
        files = try POSIXFileSystem().confined(to: root)
    }

    /// Runs `body` with a new tree, removed afterwards.
    static func with(_ body: (ConfinedTestTree) throws -> Void) throws {
        let tree = try ConfinedTestTree()
        defer { try? FileManager.default.removeItem(atPath: (tree.root as NSString).deletingLastPathComponent) }
        try body(tree)
    }

    /// The whole path of `relative`, below the root.
    func path(_ relative: String) -> String { root + "/" + relative }

    /// Plants a symbolic link at `relative` pointing to `target`.
    func link(_ relative: String, to target: String) {
        #expect(symlink(target, path(relative)) == 0)
    }

    var outsideText: String { (try? String(contentsOfFile: outside + "/file", encoding: .utf8)) ?? "<gone>" }
}
