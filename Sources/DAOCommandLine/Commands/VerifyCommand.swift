import DAOKit
import DAOKitStoreFormat

/// `dao verify DIR`: an integrity check that reports one line per problem and changes nothing.
///
/// It reports what the store would have to repair on its next open (an unfinished or torn
/// journal, temporary files, trash directories) as well as what it cannot repair (records that do
/// not parse, records in the wrong file, foreign files): a store that verifies clean is one the
/// next open leaves exactly as it is. It also notes, without counting it a problem, each entity
/// whose newest records a newer entity version wrote than every other record.
struct VerifyCommand {
    let console: Console

    func run(directory: String) throws -> Int32 {
        let (scan, findings) = try StoreReadLock.withSharedLock(directory: directory, command: "verify") {
            let scan = try StoreScan.scan(directory, command: "verify")
            return (scan, Self.findings(in: scan))
        }
        let problems = findings.problems
        for problem in problems { console.line(problem) }
        for note in findings.notes { console.line("note: \(note)") }
        // Only the envelope: dao cannot know the Swift types, so it never decodes an entity, and
        // says so, lest "sound" be read as "every record reads".
        let checked =
            "\(TextLayout.count(scan.recordCount, "record")) of \(TextLayout.count(scan.entities.count, "entity type")) checked, "
            + "envelopes only: entities are not decoded"
        if problems.isEmpty {
            console.line("OK: \(scan.root) is sound (\(checked))")
            return ExitStatus.success
        }
        console.line("\(TextLayout.count(problems.count, "problem")) in \(scan.root) (\(checked))")
        return ExitStatus.problems
    }

    /// Every problem, as `PATH: what is wrong`, in the order of the layout: the store's own files,
    /// then entity by entity; and the notes, which are no problem: each entity whose newest
    /// records a newer entity version wrote than every other (``EntityVersionCounts``).
    static func findings(in scan: StoreScan) -> (problems: [String], notes: [String]) {
        let root = scan.root
        var problems: [String] = []
        var notes: [String] = []
        let journalPath = root + "/" + FileStoreLayout.journalFileName
        switch scan.journal {
        case .absent, .idle:
            break
        case .unfinished(let entityDirectory, let fileNames, _):
            let entity = FileNameCodec.decode(entityDirectory) ?? entityDirectory
            problems.append(
                "\(journalPath): a batch of \(TextLayout.count(fileNames.count, "change")) to \(entity) did not finish; "
                    + "the next open of the store rolls it back")
        case .unfinishedReset:
            problems.append(
                "\(journalPath): a reset of every entity type did not finish; the next open of the store completes it, "
                    + "removing every record")
        case .torn(let size):
            problems.append(
                "\(journalPath): a torn journal (\(TextLayout.count(size, "byte")), its checksum does not match); "
                    + "the next open of the store discards it")
        case .unreadable(let message):
            problems.append("\(journalPath): cannot be read: \(message)")
        }
        if let problem = scan.lockProblem {
            problems.append("\(root)/\(FileStoreLayout.lockFileName): \(problem)")
        }
        if let problem = scan.changeLogProblem {
            problems.append("\(root)/\(FileStoreLayout.changeLogFileName): \(problem)")
        }
        for name in scan.refused {
            problems.append(
                "\(root)/\(name): a symbolic link, FIFO or device, which the store never follows or opens; "
                    + "if it stands for an entity folder, that entity cannot be read or written until it is replaced by a real folder"
            )
        }
        for name in scan.trash {
            problems.append(
                "\(root)/\(name): the entity directory of a deleteAll that did not finish; the next open of the store deletes it"
            )
        }
        for name in scan.foreign {
            problems.append(
                "\(root)/\(name): not part of the store (its directory holds only entity directories and the store's dot-files)"
            )
        }
        let formats = scan.formatCounts
        if formats.count > 1 {
            let counts = formats.map { "\($0.count) .\($0.format.fileExtension)" }.joined(separator: ", ")
            problems.append(
                "\(root): records in more than one format (\(counts)); a FileStorageContext opens a store of one format only, so it opens this one with neither"
            )
        }
        for entity in scan.entities {
            if let error = entity.listingError {
                problems.append("\(entity.path): cannot be read: \(error)")
            }
            for name in entity.temporaryFiles {
                problems.append(
                    "\(entity.path)/\(name): the temporary file of a write that did not finish; the next open of the store removes it"
                )
            }
            for name in entity.foreignFiles {
                problems.append(
                    "\(entity.path)/\(name): not a record file (records end in .json or .plist), so the store never reads it"
                )
            }
            var versions = EntityVersionCounts()
            for record in entity.records {
                switch record.readChecked() {
                case .success(let stored): versions.count(stored.dataVersion)
                case .failure(let problem): problems.append("\(record.path): \(problem)")
                }
            }
            if let note = versions.newestVersionNote(location: entity.path, entity: entity.displayName, unit: "record")
            {
                notes.append(note)
            }
        }
        return (problems, notes)
    }
}
