import DAOKit
import DAOKitStoreFormat

/// `dao inspect DIR`: what a store holds, at a glance. Informational: it exits 0 whatever it
/// finds, and points to `dao verify` when something looks wrong.
struct InspectCommand {
    let console: Console

    func run(directory: String) throws -> Int32 {
        let report = try StoreReadLock.withSharedLock(directory: directory, command: "inspect") {
            Self.report(try StoreScan.scan(directory, command: "inspect"))
        }
        for line in report { console.line(line) }
        return ExitStatus.success
    }

    static func report(_ scan: StoreScan) -> [String] {
        var versions: [Int: Int] = [:]
        var unreadable = 0
        var rows: [[String]] = [["Entity", "Directory", "Records", "Versions", "Size"]]
        var totalSize = 0
        for entity in scan.entities {
            var size = 0
            var dataVersions = EntityVersionCounts()
            for record in entity.records {
                let (bytes, result) = record.readEnvelope()
                size += bytes ?? 0
                switch result {
                case .success(let stored):
                    versions[stored.formatVersion, default: 0] += 1
                    dataVersions.count(stored.dataVersion)
                case .failure: unreadable += 1
                }
            }
            totalSize += size
            let records = entity.listingError == nil ? String(entity.records.count) : "unreadable"
            rows.append([
                entity.displayName, entity.directoryName, records, dataVersions.description, TextLayout.byteCount(size),
            ])
        }
        rows.append(["Total", "", String(scan.recordCount), "", TextLayout.byteCount(totalSize)])

        var lines = TextLayout.table([
            ["Store", scan.root],
            ["Format", formatLine(scan, versions: versions, unreadable: unreadable)],
            ["Lock file", scan.hasLockFile ? ".lock present" : "none (no process has opened the store)"],
            ["Journal", journalLine(scan.journal)],
        ])
        lines.append("")
        if scan.entities.isEmpty {
            lines.append("No entities yet.")
        } else {
            lines += TextLayout.table(rows, rightAligned: [2, 4])
        }
        lines.append("")
        let leftovers = leftoverLines(scan)
        lines.append(leftovers.isEmpty ? "Leftovers: none" : "Leftovers:")
        lines += leftovers.map { "  " + $0 }
        if !leftovers.isEmpty || unreadable > 0 || scan.journal.needsRecovery || scan.formatCounts.count > 1 {
            lines.append("")
            lines.append("Run 'dao verify \(TextLayout.shellQuoted(scan.root))' for every problem, one per line.")
        }
        return lines
    }

    private static func formatLine(_ scan: StoreScan, versions: [Int: Int], unreadable: Int) -> String {
        let formats = scan.formatCounts
        guard !formats.isEmpty else { return "no records yet" }
        let names = formats.map { format, count in
            let name = format.fileExtension == "json" ? "JSON (.json)" : "binary property list (.plist)"
            return formats.count == 1 ? name : "\(name) × \(count)"
        }.joined(separator: ", ")
        let sorted = versions.keys.sorted()
        if sorted.count == 1 && unreadable == 0 {
            return "\(names), format version \(sorted[0])"
        }
        var detail =
            sorted.isEmpty
            ? "" : ", format versions " + sorted.map { "\($0) × \(versions[$0] ?? 0)" }.joined(separator: ", ")
        if unreadable > 0 { detail += "; " + TextLayout.count(unreadable, "unreadable record") }
        return names + detail
    }

    private static func journalLine(_ journal: JournalState) -> String {
        switch journal {
        case .absent: return "none (no batch has run yet)"
        case .idle: return "empty (every batch finished)"
        case .unfinished(let directory, let fileNames, _):
            let entity = FileNameCodec.decode(directory) ?? directory
            return
                "UNFINISHED batch of \(TextLayout.count(fileNames.count, "change")) to \(entity) (the next open rolls it back)"
        case .unfinishedReset:
            return "a reset that did not finish (the next open completes it: every record is removed)"
        case .torn(let size): return "torn, \(TextLayout.count(size, "byte")) (the next open discards it)"
        case .unreadable(let message): return "cannot be read: \(message)"
        }
    }

    private static func leftoverLines(_ scan: StoreScan) -> [String] {
        var lines: [String] = []
        for name in scan.trash { lines.append("\(name)/  (an unfinished deleteAll's directory)") }
        for entity in scan.entities {
            for name in entity.temporaryFiles {
                lines.append("\(entity.directoryName)/\(name)  (an unfinished write's temporary file)")
            }
            for name in entity.foreignFiles { lines.append("\(entity.directoryName)/\(name)  (not a record file)") }
        }
        for name in scan.foreign { lines.append("\(name)  (not part of the store)") }
        return lines
    }
}
