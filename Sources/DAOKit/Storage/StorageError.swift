/// An error thrown by a ``StorageContext`` or ``BaseDao`` when a record cannot be stored or read.
///
/// Its description names the entity, the record's key and, where there is one, the file path or
/// store key, so a failing record can be found and inspected:
///
/// ```
/// MessageEntity "42": corrupt record (empty file) at /data/store/^message^entity/42.json
/// ```
public struct StorageError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// `create` was asked to insert an id that is already stored.
        case duplicateID
        /// `update` was asked to replace an id that is not stored.
        case missingID
        /// The stored bytes are not a record in the documented format (truncated, empty, random
        /// bytes, an unknown format version, a folder where a file should be); the detail says which.
        case corruptRecord(String)
        /// An entity could not be encoded for storage; nothing was written.
        case encodingFailed
        /// A well-formed record could not be decoded as the entity type.
        case decodingFailed
        /// The store could not be read or written; the detail is the system's message.
        case io(String)
        /// A ``FileStorageContext`` was opened with one ``FileStorageContext/RecordFormat`` on a
        /// store that holds records in the other one (or in both); the detail says which, and how
        /// to open it. Nothing was read or written.
        case wrongFormat(String)
        /// The context was called again, on the same thread, from code it runs while holding its
        /// lock — such as a ``KeyValueStore`` method, or an observer of a notification that the
        /// store posts while the context writes to it. The nested call is refused and changes
        /// nothing; the outer call goes on, still holding the lock. Make the nested call after the
        /// outer one returns (for example, dispatch it to another queue).
        case reentrantCall
    }

    /// What went wrong.
    public let kind: Kind
    /// The entity's ``Storable/entityName``, when the error concerns one entity type.
    public let entityName: String?
    /// The record's ``StorageKey/storageKey``, when the error concerns one record.
    public let key: String?
    /// The file path or store key involved, when there is one.
    public let location: String?
    /// The error that caused this one, such as an `EncodingError`, a ``MappingError`` or a
    /// Foundation file error.
    public let underlyingError: (any Error)?

    /// Creates a storage error.
    public init(
        _ kind: Kind,
        entityName: String? = nil,
        key: String? = nil,
        location: String? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.kind = kind
        self.entityName = entityName
        self.key = key
        self.location = location
        self.underlyingError = underlyingError
    }

    /// `<entity> <key>: <reason> at <location>`; for several records (``RecordFailures``),
    /// `<entity>: <n> records cannot be read at <location>:` and one indented line per record.
    public var description: String {
        if let list = underlyingError as? RecordFailures {
            var text = "\(entityName ?? "store"): \(list.failures.count) records cannot be read"
            if let location { text += " at \(location)" }
            return text + ":\n" + list.failures.map { "  " + RecordFailures.line($0) }.joined(separator: "\n")
        }
        var subject = entityName ?? "store"
        if let key { subject += " \(key.debugDescription)" }
        var text = "\(subject): \(reason)"
        if let location { text += " at \(location)" }
        if let underlyingError, !kindCarriesDetail { text += " (\(underlyingError))" }
        return text
    }

    private var kindCarriesDetail: Bool {
        switch kind {
        case .corruptRecord, .io, .wrongFormat: return true
        default: return false
        }
    }

    var reason: String {
        switch kind {
        case .duplicateID: return "an entity with this id already exists"
        case .missingID: return "no entity with this id exists"
        case let .corruptRecord(detail): return "corrupt record (\(detail))"
        case .encodingFailed: return "the entity could not be encoded"
        case .decodingFailed: return "the record could not be decoded"
        case let .io(message): return "I/O failure (\(message))"
        case let .wrongFormat(detail): return "wrong record format (\(detail))"
        case .reentrantCall: return "called again from inside a call to the same context, which holds its lock; refused"
        }
    }
}
