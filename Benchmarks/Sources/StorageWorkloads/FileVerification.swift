import BenchmarkModels
import DAOKit

/// Checks that the DAO and the raw baseline do the same thing to the same files: the raw path is
/// the context's file, the raw bytes are the context's bytes, and both read back every message.
///
/// Every workload runs once first, so that what is timed is what was checked; they all write the
/// messages the store already holds, so it must hold exactly those afterwards, and no temporary
/// file may be left behind.
struct FileVerification {
    let fixture: FileFixture
    let workloads: [StorageWorkload]

    func run() throws {
        for workload in workloads {
            do {
                try workload.run(1)
            } catch {
                throw StorageMismatch(workload: workload.name, reason: "threw \(error)")
            }
        }
        let messages = fixture.messages
        let raw = fixture.raw
        let persistRaw = FileWorkloads.name(.persistOne, .raw)

        // The first twenty messages set and leave out every optional field in turn.
        for message in messages.prefix(20) {
            let contextPath = fixture.context.fileURL(for: MessageEntity.self, id: message.id).path
            try expectEqual(persistRaw + " (file name)", raw.path(for: message.id), contextPath)
            try fixture.dao.persist(message)
            let written = try RawFileIO.contents(of: contextPath)
            try expectEqual(
                persistRaw + " (bytes of \(message.id))", String(decoding: try raw.encode(message), as: UTF8.self),
                String(decoding: written, as: UTF8.self))
            try expectEqual(FileWorkloads.name(.readById, .dao), try fixture.dao.read(id: message.id), message)
            try expectEqual(FileWorkloads.name(.readById, .raw), try raw.read(id: message.id), message)
            let fetched = try fixture.context.fetch(MessageEntity.self, id: message.id).map(
                MessageTranslator.plain(from:))
            try expectEqual(FileWorkloads.name(.readById, .contextOnly), fetched, message)
        }

        let byID = { (values: [Message]) in values.sorted { $0.id < $1.id } }
        try expectEqual(FileWorkloads.name(.readAll, .dao), byID(try fixture.dao.read()), messages)
        try expectEqual(FileWorkloads.name(.readAll, .raw), byID(try raw.readAll()), messages)
        let fetched = try fixture.context.fetchAll(MessageEntity.self).map(MessageTranslator.plain(from:))
        try expectEqual(FileWorkloads.name(.readAll, .contextOnly), byID(fetched), messages)

        let leftovers = try RawFileIO.fileNames(in: raw.directory).filter { $0.hasPrefix(".") }
        try expectEqual(persistRaw + " (temporary files left)", leftovers, [])
    }
}
