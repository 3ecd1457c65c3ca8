/// `dao dump DIR ENTITY [KEY]`: records as one JSON object keyed by their real ids.
///
/// Keys come from inside the records, never from file names: hashed names cannot be decoded, and
/// a record whose file name disagrees with its key is exactly what the store refuses to read, so
/// `dump` refuses it too (on standard error, exit status 1) rather than guess.
struct DumpCommand {
    let console: Console

    func run(directory: String, entity entityName: String, key: String?) throws -> Int32 {
        let (members, failures) = try StoreReadLock.withSharedLock(directory: directory, command: "dump") {
            let scan = try StoreScan.scan(directory, command: "dump")
            if scan.entity(named: entityName) == nil, let link = scan.refusedEntry(named: entityName) {
                throw CommandFailure(
                    "dao dump: \(link): a symbolic link, FIFO or device stands where the folder of "
                        + "'\(entityName)' should be; the store never follows it, so it has no readable records")
            }
            guard let entity = scan.entity(named: entityName) else {
                let known = scan.entities.map(\.displayName)
                let list = known.isEmpty ? "it has none yet" : "its entities are " + known.joined(separator: ", ")
                throw UsageError("dao dump: no entity named '\(entityName)' in \(scan.root); \(list)")
            }
            if let error = entity.listingError {
                throw CommandFailure("dao dump: cannot read \(entity.path): \(error)")
            }
            let records: [StoreScan.RecordFile]
            if let key {
                let candidates = Set(RecordReader.formats.map { $0.fileName(forKey: key) })
                records = entity.records.filter { candidates.contains($0.name) }
                guard !records.isEmpty else {
                    throw UsageError(
                        "dao dump: no \(entity.displayName) record with key \(key.debugDescription) in \(scan.root)")
                }
            } else {
                records = entity.records
            }
            var (members, failures) = Self.read(records)
            if case .unfinished(let directoryName, let fileNames, _) = scan.journal,
                directoryName == entity.directoryName
            {
                // The files may hold part of a batch that the next open of the store undoes, so
                // what is shown may not be what the store reads: a problem worth status 1.
                failures.append(
                    "dao dump: \(scan.root)/.journal holds an unfinished batch; the next open of the store restores "
                        + "\(TextLayout.count(fileNames.count, "\(entity.displayName) record")) to their earlier contents"
                )
            }
            return (members, failures)
        }
        for failure in failures { console.errorLine(failure) }
        console.line(JSONWriter.pretty(.object(members)))
        return failures.isEmpty ? ExitStatus.success : ExitStatus.problems
    }

    /// The readable records as members sorted by key, and a line for each unreadable one.
    private static func read(_ records: [StoreScan.RecordFile]) -> (members: [JSONMember], failures: [String]) {
        var members: [JSONMember] = []
        var failures: [String] = []
        for record in records {
            switch record.readChecked() {
            case .success(let stored): members.append(JSONMember(name: stored.key, value: stored.entity))
            case .failure(let problem): failures.append("dao dump: skipped \(record.path): \(problem)")
            }
        }
        members.sort { TextLayout.keyPrecedes($0.name, $1.name) }
        return (members, failures)
    }
}
