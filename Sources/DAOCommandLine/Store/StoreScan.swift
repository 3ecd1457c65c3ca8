import DAOKit
import DAOKitFileStore
import DAOKitInternals
import DAOKitStoreFormat
import Foundation

/// What a store directory holds, classified by the file store's layout (DAOKit's
/// `FileStoreLayout` names the store's own files, `FileNameCodec` the entity directories and
/// record files), before any record is read.
///
/// Other names starting with `.` are ignored, as the store ignores them (a Finder `.DS_Store`, say).
struct StoreScan {
    /// The directory as the user wrote it (without trailing slashes), so printed paths can be
    /// pasted back into a shell.
    let root: String
    let hasLockFile: Bool
    let journal: JournalState
    /// Entity directories, sorted by entity name.
    let entities: [EntityDirectory]
    /// Names of `.trash-*` directories.
    let trash: [String]
    /// Names at the top level that are not part of the layout (files, or directories the store
    /// could not have named).
    let foreign: [String]
    /// Names at the top level that are symbolic links, FIFOs, sockets or devices (not dot-files):
    /// the store never follows or opens them, so any entity folder among them cannot be read.
    let refused: [String]
    /// Why `.lock` cannot be used, when it is there but is not a regular file.
    let lockProblem: String?
    /// What is wrong with `.changes`, the change log query caches read (see `ChangeLog`), if
    /// anything.
    let changeLogProblem: String?
    /// The store's directory, confined (see ``FileSystem/confined(to:)``): every read of the scan
    /// goes through it, so none follows a link inside the store.
    let files: any FileSystem

    struct EntityDirectory {
        let directoryName: String
        /// The decoded entity name; `nil` for a hashed name (an entity name over 255 bytes).
        let entityName: String?
        let path: String
        let records: [RecordFile]
        /// Names of `.tmp-*` files.
        let temporaryFiles: [String]
        /// Names of files that are not records of either format.
        let foreignFiles: [String]
        /// Why the directory could not be listed, if it could not.
        let listingError: String?

        /// The entity name, or the directory name when the entity name is hashed.
        var displayName: String { entityName ?? directoryName }
    }

    struct RecordFile {
        let name: String
        let path: String
        let format: FileStorageContext.RecordFormat
        let kind: StoreEntry
        /// The confined file system of the scan, which ``readEnvelope()`` reads through.
        let files: any FileSystem
    }

    var recordCount: Int { entities.reduce(0) { $0 + $1.records.count } }

    /// The record formats the store's files use, with their counts; a store opened with one
    /// format does not see the other's files.
    var formatCounts: [(format: FileStorageContext.RecordFormat, count: Int)] {
        RecordReader.formats.compactMap { format in
            let count = entities.reduce(0) { $0 + $1.records.count { $0.format == format } }
            return count > 0 ? (format, count) : nil
        }
    }

    /// `directory` without trailing slashes.
    static func trimmed(_ directory: String) -> String {
        var root = directory
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        return root
    }

    /// The file system confined to `directory` (which may itself be a link: the user chose it).
    /// - Throws: ``UsageError`` when it is missing, not a directory, or cannot be opened.
    static func confinedFileSystem(_ directory: String, command: String) throws(UsageError) -> any FileSystem {
        do throws(FileSystemError) {
            return try POSIXFileSystem().confined(to: trimmed(directory))
        } catch  where error.code == ENOENT {
            throw UsageError("dao \(command): no such directory: \(directory)")
        } catch  where error.code == ENOTDIR {
            throw UsageError("dao \(command): not a directory: \(directory)")
        } catch {
            throw UsageError("dao \(command): cannot read \(directory): \(error.reason)")
        }
    }

    /// Scans `directory` for `command`, through the store format's confined file system: what a
    /// link inside the store points to is never looked at.
    /// - Throws: ``UsageError`` when it is missing, not a directory, unreadable, or not a file
    ///   store (see ``notAStore(_:hasJournal:)``), so that a mistyped path is one clear line rather
    ///   than a page of "foreign file" reports.
    static func scan(_ directory: String, command: String) throws(UsageError) -> StoreScan {
        let root = trimmed(directory)
        let files = try confinedFileSystem(directory, command: command)
        let names: [String]
        do throws(FileSystemError) {
            names = try files.sortedContentsOfDirectory(root)
        } catch {
            throw UsageError("dao \(command): cannot read \(directory): \(error.reason)")
        }

        var entities: [EntityDirectory] = []
        var trash: [String] = []
        var foreign: [String] = []
        var refused: [String] = []
        var lockProblem: String?
        var changeLogProblem: String?
        for name in names {
            let path = root + "/" + name
            let kind = (try? files.entry(at: path)) ?? .other
            if name == FileStoreLayout.lockFileName {
                if case .file = kind { continue }
                lockProblem = "not a regular file; the store refuses to open until it is removed"
            } else if name == FileStoreLayout.changeLogFileName {
                changeLogProblem = Self.changeLogProblem(at: path, kind: kind, files: files)
            } else if name.hasPrefix(FileStoreLayout.trashDirectoryPrefix) && kind == .directory {
                trash.append(name)
            } else if name.hasPrefix(".") {
                continue
            } else if kind == .symbolicLink || kind == .other {
                refused.append(name)
            } else if kind == .directory, let entity = entityDirectory(name, path: path, files: files) {
                entities.append(entity)
            } else {
                foreign.append(name)
            }
        }
        let scan = StoreScan(
            root: root, hasLockFile: names.contains(FileStoreLayout.lockFileName),
            journal: JournalState.read(at: root + "/" + FileStoreLayout.journalFileName, files: files),
            entities: entities.sorted { $0.displayName.utf8.lexicographicallyPrecedes($1.displayName.utf8) },
            trash: trash, foreign: foreign, refused: refused, lockProblem: lockProblem,
            changeLogProblem: changeLogProblem, files: files)
        if let reason = notAStore(scan, hasJournal: names.contains(FileStoreLayout.journalFileName)) {
            throw UsageError("dao \(command): \(directory) is not a DAOKit file store (\(reason))")
        }
        return scan
    }

    /// What is wrong with the change log at `path`: not a regular file (every write, which logs
    /// first, fails until it is removed), or lines that do not name an entity directory and a
    /// record file (query caches skip them, so a change they stood for may go unseen by a process
    /// that has the type cached). `nil` when it is sound.
    static func changeLogProblem(at path: String, kind: StoreEntry, files: any FileSystem) -> String? {
        guard case .file = kind else {
            return "not a regular file; every write to the store fails until it is removed"
        }
        guard case .bytes(let data)? = try? files.readContents(of: path) else { return "cannot be read" }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let malformed =
            lines.dropLast().filter { line in
                let parts = line.split(separator: "/", omittingEmptySubsequences: false)
                return parts.count != 2 || parts[0].isEmpty || parts[1].isEmpty
            }.count + (lines.last?.isEmpty == false ? 1 : 0)
        guard malformed > 0 else { return nil }
        return
            "\(TextLayout.count(malformed, "line")) that name no record; processes with a query cache may miss the change "
            + "they stood for until they reopen the store"
    }

    /// Why the scanned directory is not a file store; `nil` when it is one.
    ///
    /// A store has `.lock` (every context that opens it creates one) or `.journal`. Without either —
    /// a store copied without its dot-files — it must look like nothing else: at least one entity
    /// directory holding records, and nothing beside its entity directories. A directory such as
    /// the system's temporary one, which may hold a stray record in some folder among many other
    /// things, is not a store.
    static func notAStore(_ scan: StoreScan, hasJournal: Bool) -> String? {
        if scan.hasLockFile || hasJournal { return nil }
        let recordFolders = scan.entities.filter { !$0.records.isEmpty }
        if recordFolders.isEmpty { return "no .lock file, no .journal and no record folders" }
        let others = (scan.foreign + scan.refused).sorted()
        guard let first = others.first else { return nil }
        return "no .lock file, no .journal, and \(others.count == 1 ? "an entry" : "\(others.count) entries") "
            + "that no store holds, such as \(first)"
    }

    /// The entity directory `name`, or `nil` when the store could not have named a directory so.
    private static func entityDirectory(_ name: String, path: String, files: any FileSystem) -> EntityDirectory? {
        let entityName = FileNameCodec.decode(name)
        guard entityName != nil || FileNameCodec.isHashed(name) else { return nil }
        var records: [RecordFile] = []
        var temporaryFiles: [String] = []
        var foreignFiles: [String] = []
        let names: [String]
        do throws(FileSystemError) {
            names = try files.sortedContentsOfDirectory(path)
        } catch {
            return EntityDirectory(
                directoryName: name, entityName: entityName, path: path, records: [], temporaryFiles: [],
                foreignFiles: [], listingError: error.reason)
        }
        for fileName in names {
            if fileName.hasPrefix(FileStoreLayout.temporaryFilePrefix) {
                temporaryFiles.append(fileName)
            } else if fileName.hasPrefix(".") {
                continue
            } else if let format = RecordReader.formats.first(where: { fileName.hasSuffix("." + $0.fileExtension) }) {
                let filePath = path + "/" + fileName
                let kind = (try? files.entry(at: filePath)) ?? .other
                records.append(RecordFile(name: fileName, path: filePath, format: format, kind: kind, files: files))
            } else {
                foreignFiles.append(fileName)
            }
        }
        return EntityDirectory(
            directoryName: name, entityName: entityName, path: path, records: records,
            temporaryFiles: temporaryFiles, foreignFiles: foreignFiles, listingError: nil)
    }

    /// The entity directory the user means by `name`: its entity name (also when the directory
    /// name is hashed), or failing that its directory name as `ls` shows it.
    func entity(named name: String) -> EntityDirectory? {
        let encoded = FileNameCodec.encode(name)
        return entities.first { $0.directoryName == encoded } ?? entities.first { $0.directoryName == name }
    }

    /// The path of the top-level link (or FIFO, or device) that stands where the entity folder
    /// the user means by `name` should be, if one does.
    func refusedEntry(named name: String) -> String? {
        let encoded = FileNameCodec.encode(name)
        return refused.first { $0 == encoded || $0 == name }.map { root + "/" + $0 }
    }
}
