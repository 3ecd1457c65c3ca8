import DAOKitInternals
import DAOKitStoreFormat
import Foundation

/// The committed state of an entity folder whose batch stopped half way and cannot be rolled back
/// yet (no write access, or no free space): every file the journal names holds what the journal
/// kept of it (or nothing), every other file holds what it holds on disk. Readers read through it
/// so that an unfinished batch never blocks reading and reading never needs to write.
struct CommittedFiles {
    /// The journal's entries by file name: the contents before the batch, `nil` when the file did
    /// not exist.
    private let previous: [String: Data?]

    /// The committed state of the entity folder `directoryName`, one of those `journal` names.
    init(_ journal: Journal, directoryName: String) {
        var previous: [String: Data?] = [:]
        for entry in journal.entries(inDirectory: directoryName) {
            previous[entry.fileName] = .some(entry.previousContents)
        }
        self.previous = previous
    }

    /// What `name` held before the batch when the journal names it; `nil` when it does not (the
    /// file on disk is then committed as it is).
    func contents(of name: String) -> FileContents? {
        guard let kept = previous[name] else { return nil }
        return kept.map(FileContents.bytes) ?? .absent
    }

    /// The record file names of the committed state, from those `listed` on disk: without the
    /// files the batch created, with those it removed.
    func names(listed: [String], fileExtension: String) -> [String] {
        let suffix = "." + fileExtension
        var names = listed.filter { previous[$0] == nil }
        for (name, kept) in previous where kept != nil && name.hasSuffix(suffix) && !name.hasPrefix(".") {
            names.append(name)
        }
        return names
    }
}
