import BenchmarkModels
import DAOKit
import DAOKitFileStore
import Foundation

/// A `FileStorageContext` in a temporary directory, holding messages, with a `BaseDao` over it and
/// the raw baseline working on the same files.
///
/// The DAO and the raw baseline write the very files the other reads, with the same bytes, so
/// whichever ran last, the store holds the same records and every variant reads the same data.
final class FileFixture {
    let messages: [Message]
    /// The messages cut into batches, written in turn by the batch workloads.
    let batches: [[Message]]
    let context: FileStorageContext
    let dao: BaseDao<Message, MessageEntity>
    let raw: RawRecordFiles
    /// Removed, store and all, when the fixture is released.
    let storeDirectory: TemporaryDirectory

    /// Creates the store and writes `messages` into it in one batch (much faster than one by one).
    init(messages: [Message], batchSize: Int) throws {
        self.messages = messages
        batches = stride(from: 0, to: messages.count, by: batchSize).map {
            Array(messages[$0..<min($0 + batchSize, messages.count)])
        }
        storeDirectory = try TemporaryDirectory(prefix: "daokit-benchmarks-files")
        context = try FileStorageContext(directory: URL(fileURLWithPath: storeDirectory.path))
        dao = BaseDao(context: context)
        try dao.persist(messages)
        let recordFile = context.fileURL(for: MessageEntity.self, id: messages[0].id)
        raw = RawRecordFiles(directory: recordFile.deletingLastPathComponent().path)
    }
}
