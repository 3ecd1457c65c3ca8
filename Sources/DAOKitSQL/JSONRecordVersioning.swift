import DAOKit
import Foundation

extension JSONRecord {
    /// An entity's versions (its ``EntitySchema``) as a context that keeps ``JSONRecord``s needs
    /// them: what to stamp beside a record it writes, how to read a record an older version
    /// wrote, which stored fields a save keeps, and which fields its SQL may not compare while
    /// older records are stored. The same rules as DAOKit's own contexts, so a version means the
    /// same in each.
    ///
    /// A context keeps two numbers beside each record: the version, ``storedVersion`` (`nil` for
    /// an entity that declares nothing, so that its records are stored exactly as before versions
    /// existed; or ``version`` always, as PostgreSQL's `NOT NULL` column does), and
    /// ``storedReadableFrom``; a record that carries no version reads as version 1. It reads a
    /// record through
    /// ``decode(_:from:storedVersion:readableFrom:key:location:)``; it never replaces a record a
    /// newer version wrote (its upsert compares the stored version with ``version`` and fails the
    /// save with ``replacementRefused(storedVersion:key:location:)``); a save keeps the stored
    /// values of ``keptFields`` the new record does not hold; and while the store holds records
    /// older than the current version, a query leaves the conditions and sorts on
    /// ``fieldsChanged(inRecordsFrom:)`` to Swift.
    public struct Versioning: Sendable {
        private let base: EntityVersioning

        /// The versioning of `type`, checked the first time it is asked for.
        /// - Throws: `StorageError` with `StorageError.Kind.invalidSchema(_:)` naming the field,
        ///   for a schema that cannot be right (a default of another type, a step past the
        ///   version).
        public static func of<E: Storable>(_ type: E.Type) throws -> Versioning {
            Versioning(base: try EntityVersioning.of(E.self))
        }

        /// The version this code writes records with.
        public var version: Int { base.version }

        /// Whether the entity declares no versions: its records carry no stamp and read as they are.
        public var isInitial: Bool { base.isInitial }

        /// The version to store beside a record this code writes: `nil` for version 1.
        public var storedVersion: Int? { base.isInitial ? nil : base.version }

        /// The oldest version that reads a record this code writes, to store beside it when it is
        /// older than ``version``; `nil` otherwise.
        public var storedReadableFrom: Int? {
            base.isInitial || base.readableFrom == base.version ? nil : base.readableFrom
        }

        /// The fields a step declared removed, which a save keeps from the stored record when the
        /// new one does not hold them, so that an older version — a rollback, an older instance on
        /// the same store — still reads them (Protocol Buffers' rule for unknown fields).
        public var keptFields: Set<String> { base.keptFields }

        /// Whether some older version's records hold a field otherwise than this code reads it:
        /// whether a query must ask how old the stored records are before comparing fields in SQL.
        public var changesFields: Bool { base.changesFields }

        /// The top-level fields that records of version `oldest` or later may hold otherwise than
        /// this code reads them (added since, so read as their default, or renamed since): a
        /// context must not compare or sort these in SQL while it stores such records. `nil`
        /// means every field (such records are older than a migration step, which may rewrite
        /// any); empty when `oldest` is the current version or later.
        public func fieldsChanged(inRecordsFrom oldest: Int) -> Set<String>? {
            base.fieldsChanged(inRecordsFrom: oldest)
        }

        /// The error of a save that would replace a record that `storedVersion`, newer than this
        /// code, wrote: ``StorageError/Kind/newerVersion(_:)``, naming the record.
        public func replacementRefused(storedVersion: Int, key: String, location: String?) -> StorageError {
            base.replacementRefused(storedVersion: storedVersion, key: key, location: location)
        }

        /// The entity a record holds that was written with `storedVersion` (`nil`: version 1)
        /// and declared readable from `readableFrom` (`nil`: from its own version), resolved to
        /// the current version: a field added since reads its default, a renamed one its old
        /// name, a widened one converts, and a migration step rewrites the record first.
        /// - Parameters:
        ///   - key: the record's storage key, named in errors and shown to a migration step;
        ///     evaluated only when needed.
        ///   - location: where the record lives, named in errors.
        /// - Throws: `StorageError` naming the entity, key and location: as
        ///   ``JSONRecord/decode(_:from:key:location:)``, with
        ///   ``StorageError/Kind/newerVersion(_:)`` for a record a newer version wrote that does
        ///   not declare this one can read it, and ``StorageError/Kind/decodingFailed`` when a
        ///   migration step fails the record.
        public func decode<E: Storable>(
            _ type: E.Type, from stored: Data, storedVersion: Int?, readableFrom: Int?,
            key: @autoclosure () -> String, location: String
        ) throws -> E {
            if storedVersion == nil && base.isInitial {
                return try JSONRecord.decode(E.self, from: stored, key: key(), location: location)
            }
            let plan = try base.plan(
                forStoredVersion: storedVersion ?? 1, readableFrom: readableFrom, key: key(), location: location)
            return try JSONRecord.decode(E.self, from: stored, key: key(), location: location, plan: plan)
        }
    }
}
