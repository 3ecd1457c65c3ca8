/// A stored record as a migration step (``EntityChange/migrated(_:)``) sees it: the fields it
/// holds at the version before the step, by coding key, which the step reads as the types it
/// asks for and rewrites into the next version's fields — all at once, so a field may be split,
/// converted, derived from others or removed.
///
/// ```swift
/// static let schema = EntitySchema(
///     version: 4,
///     steps: [
///         4: [.migrated { record in  // `estimate` was an Int of hours; now "3h"
///             let hours = try record.decode(Int.self, forField: "estimate")
///             try record.encode("\(hours)h", forField: "estimate")
///         }],
///     ])
/// ```
///
/// Values read and written are those the record holds as DAOKit's JSON contexts encode them:
/// a field written as `Int` decodes as `Int`, `Int64` or `Double`, a `Date` as a `Date`, an enum
/// as its raw value or as the enum.
public struct MigratingRecord: Sendable {
    /// The entity type's ``Storable/entityName``.
    public let entityName: String
    /// The record's storage key.
    public let key: String
    /// The version whose fields the record holds: the step's version minus one.
    public let version: Int
    /// The record's fields.
    private(set) var fields: [(name: String, value: RecordTree)]

    init(entityName: String, key: String, version: Int, fields: [(name: String, value: RecordTree)]) {
        self.entityName = entityName
        self.key = key
        self.version = version
        self.fields = fields
    }

    /// The names of the fields the record holds, in no particular order (the context's decoder
    /// lists them). A field whose value is `nil` may be held as `null` or not at all.
    public var fieldNames: [String] { fields.map(\.name) }

    /// Whether the record holds `field` with a value other than `null`.
    public func contains(_ field: String) -> Bool {
        guard let value = fields.first(where: { $0.name == field })?.value else { return false }
        return value != .null
    }

    /// The value of `field` as `T`.
    /// - Throws: ``MigrationFailure`` naming the field when the record lacks it (or holds
    ///   `null`), or when its value does not decode as `T` (the decoding error underneath).
    public func decode<T: Decodable>(_ type: T.Type, forField field: String) throws -> T {
        guard let value = try decodeIfPresent(T.self, forField: field) else {
            throw failure("the record has no value for `\(field)`", field: field)
        }
        return value
    }

    /// The value of `field` as `T`, or `nil` when the record lacks it or holds `null`.
    /// - Throws: ``MigrationFailure`` naming the field when its value does not decode as `T`.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type, forField field: String) throws -> T? {
        guard let value = fields.first(where: { $0.name == field })?.value, value != .null else { return nil }
        do {
            return try value.decode(T.self)
        } catch {
            throw failure("`\(field)` does not read as \(T.self): \(error)", field: field, underlying: error)
        }
    }

    /// Sets `field` to `value`, encoded as DAOKit's JSON contexts encode it (a `nil` optional
    /// as `null`), replacing what it held.
    /// - Throws: ``MigrationFailure`` naming the field when `value` cannot be encoded.
    public mutating func encode<T: Encodable>(_ value: T, forField field: String) throws {
        let tree: RecordTree
        do {
            tree = try RecordTree.of(value)
        } catch {
            throw failure("\(T.self) for `\(field)` cannot be encoded: \(error)", field: field, underlying: error)
        }
        if let position = fields.firstIndex(where: { $0.name == field }) {
            fields[position].value = tree
        } else {
            fields.append((field, tree))
        }
    }

    /// Removes `field`; nothing when the record does not hold it.
    public mutating func removeField(_ field: String) {
        fields.removeAll { $0.name == field }
    }

    /// The error that fails this record with `reason`: throw it from the step. A lazy read then
    /// reports the record as unreadable (``StorageError/Kind/decodingFailed`` with this as its
    /// ``StorageError/underlyingError``) and reads the others; ``BaseDao/migrate(progress:)-4r1a4``
    /// writes nothing and names it.
    public func failure(_ reason: String) -> MigrationFailure {
        failure(reason, field: nil)
    }

    private func failure(_ reason: String, field: String?, underlying: (any Error)? = nil) -> MigrationFailure {
        MigrationFailure(
            entityName: entityName, key: key, step: version + 1, field: field, reason: reason,
            underlyingError: underlying)
    }
}

/// Why a migration step (``EntityChange/migrated(_:)``) could not rewrite a record: thrown by the
/// step (``MigratingRecord/failure(_:)``), or by ``MigratingRecord``'s accessors for a field that
/// is missing or of another kind.
public struct MigrationFailure: Error, Sendable, CustomStringConvertible {
    /// The entity type's name.
    public let entityName: String
    /// The record's storage key.
    public let key: String
    /// The version whose step failed.
    public let step: Int
    /// The field, when the failure is about one.
    public let field: String?
    /// Why, in words.
    public let reason: String
    /// The error underneath (a `DecodingError`), if any.
    public let underlyingError: (any Error & Sendable)?

    init(entityName: String, key: String, step: Int, field: String?, reason: String, underlyingError: (any Error)?) {
        self.entityName = entityName
        self.key = key
        self.step = step
        self.field = field
        self.reason = reason
        self.underlyingError = underlyingError.map { SendableError(description: String(describing: $0)) }
    }

    /// "version 4's migration step failed for Ticket "t1": the record has no value for `estimate`".
    public var description: String {
        "version \(step)'s migration step failed for \(entityName) \(key.debugDescription): \(reason)"
    }
}

/// An error kept as its description, so that a ``MigrationFailure`` is `Sendable` whatever it
/// wraps.
private struct SendableError: Error, Sendable, CustomStringConvertible {
    let description: String
}
