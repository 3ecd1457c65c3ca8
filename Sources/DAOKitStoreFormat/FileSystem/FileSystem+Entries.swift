import DAOKitInternals

/// What a path inside the store holds, as a tool reporting on the store sees it.
package enum StoreEntry: Equatable, Sendable {
    case missing
    case directory
    case file(size: Int)
    /// A symbolic link: never followed, wherever it points.
    case symbolicLink
    /// A device, socket or FIFO: nothing the store creates, and nothing to open blindly.
    case other
}

extension FileSystem {
    /// What is at `path` itself, never following a link there (see ``status(atPath:)``).
    package func entry(at path: String) throws(FileSystemError) -> StoreEntry {
        guard let status = try status(atPath: path) else { return .missing }
        if status.isDirectory { return .directory }
        if status.isRegularFile { return .file(size: status.size) }
        return status.isSymbolicLink ? .symbolicLink : .other
    }

    /// The names in a directory, sorted by their UTF-8 bytes so that reports are stable.
    package func sortedContentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        try contentsOfDirectory(path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
