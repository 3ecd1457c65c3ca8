import DAOKitInternals
import Foundation

/// An error thrown by a ``StorageContext`` or ``BaseDao`` when a record cannot be stored or read.
///
/// Its description names the entity, the record's key and, where there is one, the file path or
/// store key, so a failing record can be found and inspected:
///
/// ```
/// MessageEntity "42": corrupt record (empty file) at /data/store/^message^entity/42.json
/// ```
public struct StorageError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, as a code a program can switch on. New codes may be added in any release,
    /// so a `switch` over codes needs a `default:`; match one with `==`, in a `switch`, or in a
    /// `catch` (`catch StorageError.Code.io`, see ``~=(_:_:)-(_,Error)``).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static member is spelled, such as `io`.
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// `create` was asked to insert an id that is already stored.
        public static let duplicateID = Code("duplicateID")
        /// `update` was asked to replace an id that is not stored.
        public static let missingID = Code("missingID")
        /// The stored bytes are not a record in the documented format (truncated, empty, random
        /// bytes, an unknown format version, a folder where a file should be, a symbolic link,
        /// FIFO or device where a record or a folder of the store should be).
        public static let corruptRecord = Code("corruptRecord")
        /// An entity could not be encoded for storage; nothing was written.
        public static let encodingFailed = Code("encodingFailed")
        /// A well-formed record could not be decoded as the entity type.
        public static let decodingFailed = Code("decodingFailed")
        /// The store could not be read or written; ``StorageError/posixErrorCode`` tells why when
        /// the system said.
        public static let io = Code("io")
        /// A `FileStorageContext` was opened with one `FileStorageContext.RecordFormat` on a
        /// store that holds records in the other one (or in both).
        public static let wrongFormat = Code("wrongFormat")
        /// The context was called again, on the same thread, from code it runs while holding its lock.
        public static let reentrantCall = Code("reentrantCall")
        /// A query asked for something no answer exists for, such as a negative limit or offset
        /// (a value a server may pass through from a request); nothing was read or changed.
        public static let invalidQuery = Code("invalidQuery")
        /// The record was written by a newer version of the entity (``Storable/schema``) than this
        /// code reads, or a save would replace such a record: code that does not know its fields
        /// could only lose them. Nothing was changed.
        public static let newerVersion = Code("newerVersion")
        /// The entity's ``Storable/schema`` cannot be right: versions out of order, a field
        /// changed twice in one step, a default whose type is not the field's. Nothing was read
        /// or changed.
        public static let invalidSchema = Code("invalidSchema")
        /// A transaction's handle was used after the transaction's body returned (the handle
        /// escaped it); nothing was read or changed.
        public static let transactionClosed = Code("transactionClosed")
        /// A transaction could not commit or a call could not run because of another transaction
        /// or writer (see <doc:Transactions> for what each context does); nothing of the
        /// transaction was committed.
        public static let transactionConflict = Code("transactionConflict")
        /// The context cannot do what was asked in this configuration (an SQLite database in memory
        /// cannot run a transaction); nothing was read or changed.
        public static let unsupported = Code("unsupported")
        /// A write would leave two records of a type with equal values in the fields of a unique
        /// ``StorageIndex``; nothing of the write was kept. The error's ``StorageError/key`` is
        /// the record being written, and ``StorageError/uniqueIndexViolation`` names the index
        /// and the record already holding the values.
        public static let uniqueViolation = Code("uniqueViolation")

        public var description: String { name }

        /// Whether `error` is a ``StorageError`` with this code: `catch StorageError.Code.io { … }`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? StorageError)?.code == pattern
        }

        /// Whether `kind` has this code, whatever its detail: `if case .io = error.kind { … }`.
        public static func ~= (pattern: Code, kind: Kind) -> Bool {
            kind.code == pattern
        }
    }

    /// What went wrong: a ``Code`` and, for some codes, a detail text.
    ///
    /// Written like the cases of an enumeration — `.duplicateID`, `.io("…")` — and compared with
    /// `==` or in a `switch` (`case .duplicateID:`); it is a structure so that codes can be added
    /// without breaking callers' exhaustive switches. Read the detail with ``detail``.
    public struct Kind: Sendable, Equatable, CustomStringConvertible {
        /// What went wrong.
        public let code: Code
        /// The detail text of `.corruptRecord`, `.io`, `.wrongFormat`, `.invalidQuery`,
        /// `.transactionConflict`, `.unsupported`, `.newerVersion`, `.invalidSchema` and
        /// `.uniqueViolation`; `nil` for the others.
        public let detail: String?

        private init(_ code: Code, _ detail: String? = nil) {
            self.code = code
            self.detail = detail
        }

        /// `create` was asked to insert an id that is already stored.
        public static let duplicateID = Kind(.duplicateID)
        /// `update` was asked to replace an id that is not stored.
        public static let missingID = Kind(.missingID)
        /// The stored bytes are not a record in the documented format (truncated, empty, random
        /// bytes, an unknown format version, a folder where a file should be, a symbolic link,
        /// FIFO or device anywhere in the store); the detail says which.
        public static func corruptRecord(_ detail: String) -> Kind { Kind(.corruptRecord, detail) }
        /// An entity could not be encoded for storage; nothing was written.
        public static let encodingFailed = Kind(.encodingFailed)
        /// A well-formed record could not be decoded as the entity type.
        public static let decodingFailed = Kind(.decodingFailed)
        /// The store could not be read or written; the detail is the system's message.
        public static func io(_ detail: String) -> Kind { Kind(.io, detail) }
        /// A `FileStorageContext` was opened with one `FileStorageContext.RecordFormat` on a
        /// store that holds records in the other one (or in both); the detail says which, and how
        /// to open it. Nothing was read or written.
        public static func wrongFormat(_ detail: String) -> Kind { Kind(.wrongFormat, detail) }
        /// The context was called again, on the same thread, from code it runs while holding its
        /// lock — such as a ``KeyValueStore`` method, or an observer of a notification that the
        /// store posts while the context writes to it. The nested call is refused and changes
        /// nothing; the outer call goes on, still holding the lock. Make the nested call after the
        /// outer one returns (for example, dispatch it to another queue).
        public static let reentrantCall = Kind(.reentrantCall)
        /// A query asked for something no answer exists for, such as a negative limit or offset;
        /// the detail names the value. Nothing was read or changed.
        public static func invalidQuery(_ detail: String) -> Kind { Kind(.invalidQuery, detail) }
        /// A record written by a newer version of the entity than this code reads, or a save that
        /// would replace one; the detail names both versions, such as "written by version 4; this
        /// build reads up to 3". Nothing was changed.
        public static func newerVersion(_ detail: String) -> Kind { Kind(.newerVersion, detail) }
        /// The entity's ``Storable/schema`` cannot be right; the detail names the field and why.
        /// Nothing was read or changed.
        public static func invalidSchema(_ detail: String) -> Kind { Kind(.invalidSchema, detail) }
        /// A transaction's handle was used after the transaction's body returned; nothing was
        /// read or changed. Use a handle only inside the body it was given to.
        public static let transactionClosed = Kind(.transactionClosed)
        /// A transaction could not commit, or a call could not run, because of another transaction
        /// or writer; the detail says which entity type or what waited. Nothing of the transaction
        /// was committed: run it again.
        public static func transactionConflict(_ detail: String) -> Kind { Kind(.transactionConflict, detail) }
        /// The context cannot do what was asked in this configuration; the detail says what and why.
        public static func unsupported(_ detail: String) -> Kind { Kind(.unsupported, detail) }
        /// A write would leave two records with equal values in the fields of a unique
        /// ``StorageIndex``; the detail names the fields and the record that holds the values
        /// already, such as `(email) already held by "u1"`. Nothing of the write was kept.
        public static func uniqueViolation(_ detail: String) -> Kind { Kind(.uniqueViolation, detail) }

        /// As the kind is written: `duplicateID`, `io("disk full")`.
        public var description: String {
            guard let detail else { return code.name }
            return "\(code.name)(\(detail.debugDescription))"
        }
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
        kind.detail != nil
    }

    var reason: String {
        let detail = kind.detail ?? ""
        switch code {
        case .duplicateID: return "an entity with this id already exists"
        case .missingID: return "no entity with this id exists"
        case .corruptRecord: return "corrupt record (\(detail))"
        case .encodingFailed: return "the entity could not be encoded"
        case .decodingFailed: return "the record could not be decoded"
        case .io: return "I/O failure (\(detail))"
        case .wrongFormat: return "wrong record format (\(detail))"
        case .invalidQuery: return "invalid query (\(detail))"
        case .newerVersion: return "record of a newer version (\(detail))"
        case .invalidSchema: return "invalid entity schema (\(detail))"
        case .transactionClosed: return "a transaction's handle was used after its body returned; refused"
        case .transactionConflict: return "transaction conflict (\(detail))"
        case .unsupported: return "unsupported (\(detail))"
        case .uniqueViolation: return "unique index violated: \(detail)"
        case .reentrantCall: return "called again from inside a call to the same context, which holds its lock; refused"
        default: return code.name + (kind.detail.map { " (\($0))" } ?? "")
        }
    }

    /// The index and the record already holding the values, for
    /// ``StorageError/Code/uniqueViolation``; `nil` for every other error.
    public var uniqueIndexViolation: UniqueIndexViolation? { underlyingError as? UniqueIndexViolation }

    /// What went wrong, as a code a program can switch on (the same as `kind.code`).
    public var code: Code { kind.code }

    /// The system's error code when a file-system call failed (`.io` from a `FileStorageContext`):
    /// `.ENOSPC` for a full disk, `.EACCES` for a denied permission, and so on; `nil` for every
    /// other error, including a path the store refused without asking the system (a symbolic link
    /// inside the store).
    public var posixErrorCode: POSIXErrorCode? {
        guard let failure = underlyingError as? FileSystemError, failure.refusal == nil else { return nil }
        return POSIXErrorCode(rawValue: failure.code)
    }
}
