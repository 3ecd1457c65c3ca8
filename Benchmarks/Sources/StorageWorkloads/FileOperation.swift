/// What the file benchmarks time; ``name`` is the operation's name in reports.
public enum FileOperation: CaseIterable, Sendable {
    /// `persist(_:)` of one message, replacing a stored one; one operation is one persist.
    case persistOne
    /// `persist(_:)` of ``FileWorkloads/batchSize`` messages in one call, replacing stored ones.
    case batch
    /// `read(id:)` of one stored message.
    case readById
    /// `read()` of every stored message.
    case readAll

    /// `files.persistOne`, `files.batch1000`, `files.readById`, `files.readAll`.
    public var name: String {
        switch self {
        case .persistOne: return "files.persistOne"
        case .batch: return "files.batch\(FileWorkloads.batchSize)"
        case .readById: return "files.readById"
        case .readAll: return "files.readAll"
        }
    }
}

/// How a file operation is done; the raw value is the name printed in reports.
public enum FileVariant: String, CaseIterable, Sendable {
    /// Through `BaseDao<Message, MessageEntity>` over a `FileStorageContext`.
    case dao
    /// The same I/O by hand (``RawRecordFiles``): the same bytes, files and `fsync`s, no DAOKit.
    case raw
    /// Only for the reads: `FileStorageContext.fetch` or `fetchAll` alone, without mapping the
    /// entities to messages, which splits `dao/raw` into what the context adds and what `BaseDao` adds.
    case contextOnly = "context only"
}
