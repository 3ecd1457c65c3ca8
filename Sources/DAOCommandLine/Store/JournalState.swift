import DAOKit
import DAOKitStoreFormat
import Foundation

/// What the store's undo journal (`<directory>/.journal`) says about the last batch.
///
/// The store writes the old contents of every file a batch touches to the journal before touching
/// any, and commits by truncating it to zero bytes. So an empty (or absent) journal means every
/// batch finished; a complete one means a batch stopped half way and the next open of the store
/// rolls it back; a torn one (its checksum does not match) was cut short before any record was
/// touched, and the next open discards it. The tool only reports: recovering is the store's job.
enum JournalState: Equatable {
    /// No `.journal` file: the store has never run a batch.
    case absent
    /// An empty journal: every batch committed.
    case idle
    /// A complete journal of a batch that did not commit.
    case unfinished(entityDirectory: String, fileNames: [String], size: Int)
    /// The intent of a reset (every entity type removed) that did not finish.
    case unfinishedReset
    /// A journal that does not parse or whose checksum does not match.
    case torn(size: Int)
    /// The journal could not be read.
    case unreadable(String)

    /// Whether the next open of the store has something to do, so `verify` must report it.
    var needsRecovery: Bool {
        switch self {
        case .absent, .idle: return false
        case .unfinished, .unfinishedReset, .torn, .unreadable: return true
        }
    }

    /// Reads the journal at `path` through `files` (confined to the store: a link is never followed).
    static func read(at path: String, files: any FileSystem) -> JournalState {
        do {
            switch try files.readContents(of: path) {
            case .absent: return .absent
            case .directory, .notRegularFile: return .unreadable("it is not a regular file")
            case .bytes(let data): return parse(data)
            }
        } catch {
            return .unreadable(error.reason)
        }
    }

    /// Classifies the journal's bytes with DAOKit's own parser, which accepts a journal only when
    /// it is complete and its checksum matches. A whole journal naming files the store never
    /// writes (such as `../x`) is reported as unreadable: the store refuses to open over it,
    /// neither rolling it back (which could change files outside the store) nor discarding it.
    static func parse(_ data: Data) -> JournalState {
        if data.isEmpty { return .idle }
        if ResetIntent.matches(data) { return .unfinishedReset }
        guard let journal = Journal(serialized: data) else { return .torn(size: data.count) }
        if let problem = journal.nameProblem() {
            return .unreadable(
                "the journal is whole but \(problem); the store will not open until it is removed by hand")
        }
        // A transaction's journal spans several entity directories: a file of another one than
        // the journal's first is listed with its directory.
        return .unfinished(
            entityDirectory: journal.directoryName,
            fileNames: journal.entries.map { entry in
                entry.directoryName.map { $0 + "/" + entry.fileName } ?? entry.fileName
            }, size: data.count)
    }
}
