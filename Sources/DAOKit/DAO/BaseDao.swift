import Foundation

/// The data access object for one domain type: callers speak only in `Domain` values, the DAO
/// converts them to and from `Entity` values with ``EntityMapper`` and keeps those in a
/// ``StorageContext``.
///
/// ```swift
/// let messages = BaseDao<Message, MessageEntity>(context: InMemoryStorageContext())
/// try messages.persist(message)
/// let unread = try messages.read(where: #Predicate { $0.isRead == false },
///                                sortedBy: [SortDescriptor(\.date, order: .reverse)])
/// ```
///
/// **Mapping.** Domain → Entity is strict: a domain field the entity does not store is a
/// ``MappingError`` at `persist`, so nothing is dropped silently. Entity → Domain is lenient, so
/// an entity may carry storage-only fields. Batches are mapped completely before anything is
/// written, so a value that does not map leaves the store untouched.
///
/// **Errors.** Every method throws ``MappingError`` when a value cannot be converted and
/// ``StorageError`` when the context fails; the context's own guarantees (a failed batch writes
/// nothing) carry over.
///
/// **Queries.** `read(where:…)`, `count(where:)` and `erase(where:)` hand the context a
/// ``StorageQuery`` for every part of the predicate and sort proven to read stored fields exactly,
/// so an indexed context answers without reading other records, and evaluate the rest on mapped
/// values; the result never differs from evaluating everything in memory.
///
/// **Atomicity.** Each call is one context operation except the queries that do not translate
/// exactly: `create` and `update` check and write under the context's lock
/// (``StorageContext/save(_:mode:)``), so two threads creating the same id cannot both succeed.
/// `erase(where:)` with a predicate that does not translate exactly reads, evaluates, then
/// deletes the ids that matched, so an entity changed by another thread in between is deleted by
/// its old values.
///
/// **Subclassing.** Apps subclass it to add their own queries built on the public methods, and
/// may override any of them (they are `open`), for example `persist` to validate values first.
///
/// **Concurrency.** `BaseDao` is `Sendable`: tasks of a `TaskGroup` and `Task {}` closures may
/// capture one DAO and call it at once. Its own state is immutable (`let`) and `Sendable` — the
/// context, which is thread-safe, and two mappers — and every method can run on any thread. The
/// conformance is `@unchecked` because an open class's conformance is inherited by subclasses
/// the compiler cannot check, so **subclasses must keep the rule**: add only `let` properties of
/// `Sendable` types, or guard mutable state with a lock (`Mutex`, `NSLock`) so that every method
/// stays safe to call from many threads at once. Each method has an `async` overload with the same
/// name and labels that runs the blocking work on DAOKit's own threads (see `BaseDao+Async.swift`).
///
/// **Live results.** ``observe(where:sortedBy:limit:offset:)``, ``observe(id:)`` and
/// ``observeCount(where:)`` deliver a result again whenever a committed change alters it (see
/// `BaseDao+Observe.swift`).
open class BaseDao<Domain: Codable & Identifiable, Entity: Storable>: @unchecked Sendable where Domain.ID == Entity.ID {
    /// Where the entities are stored.
    public let context: any StorageContext
    /// Converts entities to domain values (Entity → Domain): the mapper passed to `init`, lenient
    /// unless a strict one was passed.
    public let mapper: EntityMapper
    /// Converts domain values to entities (Domain → Entity): always strict, derived from ``mapper``.
    public let strictMapper: EntityMapper

    /// Creates a DAO that keeps its entities in `context`.
    ///
    /// `mapper` converts entities to domain values; domain values are converted to entities with a
    /// strict mapper whatever `mapper` is, so a domain field the entity lacks is never dropped.
    public init(context: any StorageContext, mapper: EntityMapper = EntityMapper()) {
        self.context = context
        self.mapper = mapper
        // Strictness is the mapper's only setting, so the strict variant is the mapper itself or
        // a strict mapper; revisit if EntityMapper gains other options.
        self.strictMapper = mapper.isStrict ? mapper : EntityMapper(strict: true)
    }

    // MARK: - Writing

    /// Inserts `domain`.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/duplicateID`` when its id is already
    ///   stored (nothing is written); ``MappingError`` when it cannot be mapped to `Entity`.
    open func create(_ domain: Domain) throws {
        try context.save([try toEntity(domain)], mode: .insert)
    }

    /// Replaces the stored value with `domain`'s id.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/missingID`` when its id is not stored
    ///   (nothing is written); ``MappingError`` when it cannot be mapped to `Entity`.
    open func update(_ domain: Domain) throws {
        try context.save([try toEntity(domain)], mode: .update)
    }

    /// Changes the value stored under `id` in place, as one read-modify-write that cannot lose a
    /// concurrent change: reads the value, passes it to `change` and writes the result back in one
    /// transaction of the context (``TransactionalStorageContext``). When another writer changed
    /// the value meanwhile, the transaction throws ``StorageError/Kind/transactionConflict(_:)``,
    /// writes nothing, and the whole step runs again on the value as it is now (so `change` may
    /// be called several times and must only compute the new value), up to `attempts` times.
    /// The "Transactions" article shows it in use.
    ///
    /// It is its own entry point, not a call of ``read(id:)-52lwd`` and ``update(_:)-64hmr``: it reads and
    /// writes through the transaction's handle, so a subclass that validates in `update(_:)`
    /// overrides this method too.
    /// - Parameters:
    ///   - id: the id of the value to change.
    ///   - attempts: how many times the step runs at most; a number below 1 counts as 1.
    ///   - change: computes the new value from the stored one, in place; it may run once per
    ///     attempt, so it should do nothing else.
    /// - Returns: the value as written, or `nil` when nothing is stored under `id` (then `change`
    ///   is not called and nothing is written).
    /// - Throws: ``StorageError/Kind/unsupported(_:)`` when the context keeps no transactions
    ///   (one that does not conform to ``TransactionalStorageContext``);
    ///   ``StorageError/Kind/transactionConflict(_:)`` when every
    ///   attempt met a concurrent change; ``StorageError/Kind/unsupported(_:)`` too when `change`
    ///   changes the value's id; what `change` throws, and ``MappingError`` or ``StorageError`` when
    ///   the value cannot be read, mapped or written — with nothing written in each case.
    open func update(id: Domain.ID, attempts: Int = 10, _ change: (inout Domain) throws -> Void) throws -> Domain? {
        guard let transactional = context as? any TransactionalStorageContext else {
            throw StorageError(
                .unsupported("\(type(of: context)) keeps no transactions, so it cannot update a value in place"),
                entityName: Entity.entityName)
        }
        if let retrying = transactional as? any RetryingTransactionalStorageContext {
            return try updateInPlace(id: id, retryingOn: retrying, attempts: max(attempts, 1), change)
        }
        return try updateInPlace(id: id, on: transactional, attempts: max(attempts, 1), change)
    }

    /// Replaces the stored value with `domain` only if the value stored under its id is still
    /// `expected`, the value the caller read: an update for a read and a write that happen apart —
    /// a form shown and saved later, an HTTP `GET` and a `PUT` with `If-Match` — that cannot
    /// overwrite a change made in between. The check and the write are one transaction of the
    /// context (``TransactionalStorageContext``), so no writer can slip in between them either.
    ///
    /// The stored value and `expected` are compared as entities, by their JSON encodings with
    /// sorted keys: a difference the encoding shows is a change. Two equal values whose encodings
    /// differ (a `Set` or `Dictionary` built in another order, `-0.0` against `0.0`) count as a
    /// change too: the update is refused, never wrongly applied.
    /// - Throws: ``StorageError/Kind/transactionConflict(_:)`` when the stored value is not
    ///   `expected` any more (read it again and decide); ``StorageError/Kind/missingID`` when
    ///   nothing is stored under the id; ``StorageError/Kind/unsupported(_:)`` when the context
    ///   keeps no transactions, or `domain` and `expected` have different ids; ``MappingError``
    ///   or ``StorageError`` when a value cannot be mapped, encoded or written. Nothing is written
    ///   in each case.
    open func update(_ domain: Domain, ifUnchangedFrom expected: Domain) throws {
        guard let transactional = context as? any TransactionalStorageContext else {
            throw StorageError(
                .unsupported("\(type(of: context)) keeps no transactions, so it cannot compare and update"),
                entityName: Entity.entityName, key: domain.id.storageKey)
        }
        try compareAndUpdate(domain, expected: expected, on: transactional)
    }

    /// Inserts `domain`, or replaces the stored value with its id.
    /// - Throws: ``MappingError`` when it cannot be mapped to `Entity`, ``StorageError`` when the
    ///   context cannot store it; nothing is written then.
    open func persist(_ domain: Domain) throws {
        try context.save([try toEntity(domain)])
    }

    /// Inserts or replaces every value, all or nothing: every value is mapped before anything is
    /// written. A later value replaces an earlier one with the same id.
    /// - Throws: ``MappingError`` naming the first value that cannot be mapped (its coding path
    ///   starts with its position, such as `[3].text`), or ``StorageError``; nothing is written then.
    open func persist(_ domains: [Domain]) throws {
        if domains.isEmpty { return }
        try context.save(try mapEach(domains, to: Entity.self, with: strictMapper))
    }

    // MARK: - Reading

    /// The value stored under `id`, or `nil`.
    /// - Throws: ``StorageError`` when the record cannot be read, ``MappingError`` when it cannot
    ///   be mapped to `Domain`.
    open func read(id: Domain.ID) throws -> Domain? {
        guard let entity = try context.fetch(Entity.self, id: id) else { return nil }
        return try mapper.map(entity, to: Domain.self)
    }

    /// Every stored value, in the context's order (unspecified; sort with
    /// ``read(where:sortedBy:limit:offset:)-8z1iu`` when order matters).
    /// - Throws: ``StorageError`` when a record cannot be read, ``MappingError`` when one cannot
    ///   be mapped to `Domain`.
    open func read() throws -> [Domain] {
        try toDomains(try context.fetchAll(Entity.self))
    }

    /// The stored values matching `predicate`, sorted by `sortedBy` (the first descriptor decides,
    /// later ones break its ties; values still tied come in the context's order), then paged: the
    /// first `offset` are skipped and at most `limit` returned.
    ///
    /// What can be proven exact is handed to the context as a ``StorageQuery`` (see
    /// ``translatesQueries``), which answers from an index or SQL where it has one; the rest is
    /// evaluated on mapped values. Either way the result is what filtering, sorting and paging
    /// every stored value in memory would give.
    /// - Throws: ``StorageError`` of code ``StorageError/Code/invalidQuery`` for a negative
    ///   `limit` or `offset` (before anything is read: a value from a request never traps);
    ///   ``StorageError`` or ``MappingError`` as ``read()-2uobt`` for the records the query reads, or
    ///   an error thrown while evaluating `predicate`.
    open func read(
        where predicate: Predicate<Domain>? = nil,
        sortedBy: [SortDescriptor<Domain>] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) throws -> [Domain] {
        try StorageQuery.validatePage(limit: limit, offset: offset, entityName: Entity.entityName)
        let plan = queryPlan(predicate: predicate, sortedBy: sortedBy, limit: limit, offset: offset)
        reportLargeScan(plan, hasPredicate: predicate != nil, counting: false)
        return try plan.finish(try candidates(for: plan))
    }

    /// How many values are stored.
    /// - Throws: ``StorageError`` when the context cannot count.
    open func count() throws -> Int {
        try context.count(Entity.self)
    }

    /// How many stored values match `predicate`: counted by the context when the predicate
    /// translates exactly, otherwise by evaluating it on the mapped values the translated part
    /// selects.
    /// - Throws: as ``read(where:sortedBy:limit:offset:)-8z1iu``.
    open func count(where predicate: Predicate<Domain>) throws -> Int {
        let plan = queryPlan(predicate: predicate, sortedBy: [], limit: nil, offset: 0)
        reportLargeScan(plan, hasPredicate: true, counting: true)
        if plan.residualPredicate == nil, let filter = plan.storageQuery.filter {
            return try context.count(Entity.self, matching: filter)
        }
        return try plan.finish(try candidates(for: plan)).count
    }

    // MARK: - Erasing

    /// Removes the value stored under `id`; does nothing when there is none.
    /// - Throws: ``StorageError`` when the context cannot delete.
    open func erase(id: Domain.ID) throws {
        try context.delete(Entity.self, ids: [id])
    }

    /// Removes the values stored under `ids`, all or nothing; unknown ids are ignored.
    /// - Throws: ``StorageError`` when the context cannot delete.
    open func erase(ids: [Domain.ID]) throws {
        try context.delete(Entity.self, ids: ids)
    }

    /// Removes the stored values matching `predicate`. When the predicate translates exactly the
    /// context deletes them in one call, all or nothing; otherwise the values the translated part
    /// selects are read and mapped, the predicate evaluated on them, and the ids that matched
    /// deleted in one call, so an entity changed by another thread in between is deleted by its old
    /// values.
    /// - Throws: as ``read(where:sortedBy:limit:offset:)-8z1iu``, or ``StorageError`` when the context
    ///   cannot delete; nothing is deleted when reading or evaluating fails.
    open func erase(where predicate: Predicate<Domain>) throws {
        let plan = queryPlan(predicate: predicate, sortedBy: [], limit: nil, offset: 0)
        if plan.residualPredicate == nil, let filter = plan.storageQuery.filter {
            return try context.delete(Entity.self, matching: filter)
        }
        let doomed = try plan.finish(try candidates(for: plan)).map(\.id)
        if doomed.isEmpty { return }
        try context.delete(Entity.self, ids: doomed)
    }

    /// Removes every stored value.
    /// - Throws: ``StorageError`` when the context cannot delete.
    open func erase() throws {
        try context.deleteAll(Entity.self)
    }

    // MARK: - Salvage

    /// Every stored value that can be read and mapped to `Domain`, and beside them a failure for
    /// each record that cannot: the context's read failures as they are, and a record that reads
    /// but does not map as ``StorageError/Kind/decodingFailed`` with the ``MappingError`` as
    /// ``StorageError/underlyingError``. How an app reads on when a few records (written by a newer
    /// version, or damaged) fail, instead of losing access to all of them:
    ///
    /// ```swift
    /// let found = try notes.readReadable()
    /// show(found.values)
    /// for failure in found.failures { log(failure) }           // one line each: entity, key, why
    /// try notes.erase(storageKeys: found.failures.compactMap(\.storageKey))
    /// ```
    ///
    /// Contexts that rely on the protocol's default cannot read past a bad record; see
    /// ``StorageContext/fetchReadable(_:)``.
    /// - Throws: ``StorageError`` only when the context cannot list the records at all.
    open func readReadable() throws -> ReadableRecords<Domain, Domain.ID> {
        mapReadable(try context.fetchReadable(Entity.self))
    }

    /// `fetched`'s values mapped to `Domain`, a value that does not map moved to the failures.
    func mapReadable(_ fetched: ReadableRecords<Entity, Entity.ID>) -> ReadableRecords<Domain, Domain.ID> {
        var result = ReadableRecords<Domain, Domain.ID>(values: [], failures: fetched.failures)
        result.values.reserveCapacity(fetched.values.count)
        for entity in fetched.values {
            do {
                result.values.append(try mapper.map(entity, to: Domain.self))
            } catch {
                let key = entity.id.storageKey
                result.failures.append(
                    UnreadableRecord(
                        storageKey: key,
                        error: StorageError(
                            .decodingFailed, entityName: Entity.entityName, key: key, underlyingError: error)))
            }
        }
        return result
    }

    /// The ids of every stored record, readable or not, without decoding any; keys that do not
    /// spell a `Domain.ID` are left out (``StorageContext/storedKeys(_:)`` lists them too).
    /// - Throws: ``StorageError`` when the context cannot list its records.
    open func storedIDs() throws -> [Domain.ID] {
        try context.storedKeys(Entity.self).compactMap(Domain.ID.init(storageKey:))
    }

    /// Removes the records under these storage keys without reading them, all or nothing; unknown
    /// keys are ignored. Use it for a record that no longer decodes, or whose key no longer spells
    /// an id (``UnreadableRecord/storageKey``).
    /// - Throws: ``StorageError`` when the context cannot delete.
    open func erase(storageKeys: [String]) throws {
        try context.delete(Entity.self, storageKeys: storageKeys)
    }

    // MARK: - Versions

    /// Rewrites every stored record that an older version of `Entity` wrote (see
    /// ``EntitySchema``) at the current version, all in one transaction of the context: afterwards
    /// every record is read without resolving old versions, and a query on a field that older
    /// records hold differently is answered by the store again (SQL) instead of in Swift. A
    /// no-op, writing nothing, when no record is older. Records a newer version wrote are left
    /// alone.
    ///
    /// Whether a crash can leave part of it is the context's transaction's promise: none on the
    /// file store and SQLite (every record is all-old or all-new), and what a batch promises on a
    /// key-value store (see <doc:Transactions>).
    ///
    /// `progress` is called as the migration goes, with how many records it rewrote of how many:
    /// once before the first write, then after every 1,000, and once when all are written (before
    /// the commit); not at all when no record is older.
    /// - Returns: how many records it rewrote.
    /// - Throws: ``StorageError`` naming every older record that does not read (a damaged one, or
    ///   one its version's steps cannot resolve), having written nothing; a failure to write or to
    ///   commit, with nothing written; ``StorageError/Kind/unsupported(_:)`` when the context
    ///   keeps no entity versions (it is not a ``VersionedStorageContext``).
    @discardableResult
    open func migrate(progress: ((MigrationProgress) -> Void)? = nil) throws -> Int {
        guard let versioned = context as? any VersionedStorageContext else {
            throw StorageError(
                .unsupported("\(type(of: context)) keeps no entity versions, so it has no older records to migrate"),
                entityName: Entity.entityName)
        }
        return try migrateOlderRecords(on: versioned, progress: progress)
    }

    // MARK: - Async dispatch

    /// Whether the `async` overloads may skip this class's synchronous methods and await an
    /// ``AsyncStorageContext`` (a database server) directly, so that no thread waits for the
    /// network.
    ///
    /// `true` for `BaseDao` itself and `false` for every subclass: a subclass may override a
    /// synchronous method (to validate before writing, to log), and every entry point — the `async`
    /// overloads, `observe`, the salvage methods — must honour that override, so for a subclass they
    /// run the synchronous methods on DAOKit's threads, as they do for every context that blocks.
    /// A subclass that overrides none of the synchronous methods (it only adds queries built on
    /// them) can return `true` to get the direct path back on an ``AsyncStorageContext``; it then
    /// must not override a synchronous method later without returning `false` again.
    /// Contexts that are not ``AsyncStorageContext``s ignore it.
    open var awaitsAsyncContextDirectly: Bool {
        type(of: self) == BaseDao<Domain, Entity>.self
    }

    // MARK: - Queries

    /// Whether queries are handed to the context where the translation is proven exact (see
    /// `FieldProof.swift` and <doc:QueriesAndIndexes>). `true`; a subclass whose domain or
    /// entity type has a custom coder that changes values only for some inputs returns `false`,
    /// and every query then reads and maps every stored value and evaluates in memory.
    open var translatesQueries: Bool { true }

    /// The plan for a query: the proof of which key paths are fields comes from one stored entity
    /// the first time a query runs for this type pair (none while the store is empty).
    func queryPlan(
        predicate: Predicate<Domain>?, sortedBy: [SortDescriptor<Domain>], limit: Int?, offset: Int
    ) -> DaoQueryPlan<Domain> {
        guard translatesQueries && (predicate != nil || !sortedBy.isEmpty) else {
            return DaoQueryPlan(
                predicate: predicate, sortedBy: sortedBy, limit: limit, offset: offset,
                proof: FieldProof<Domain, Entity>?.none)
        }
        let context = self.context
        let proof = FieldProof<Domain, Entity>(mapper: mapper) {
            // A record that does not decode (stored before a rename) must not stop the proof, or
            // every query would read, and fail on, every record: take a readable one instead.
            do {
                return try context.fetch(Entity.self, matching: StorageQuery(limit: 1)).first
            } catch {
                return try context.fetchReadable(Entity.self).values.first
            }
        }
        return DaoQueryPlan(predicate: predicate, sortedBy: sortedBy, limit: limit, offset: offset, proof: proof)
    }

    /// The mapped values the context selects for `plan`.
    private func candidates(for plan: DaoQueryPlan<Domain>) throws -> [Domain] {
        if plan.readsEverything { return try read() }
        return try toDomains(try context.fetch(Entity.self, matching: plan.storageQuery))
    }

    // MARK: - Mapping

    func toEntity(_ domain: Domain) throws -> Entity {
        try strictMapper.map(domain, to: Entity.self)
    }

    func toDomains(_ entities: [Entity]) throws -> [Domain] {
        try mapEach(entities, to: Domain.self, with: mapper)
    }

    /// Maps the elements one by one rather than the array in one call: the mapper then reuses the
    /// same few containers for every element instead of holding a tree of the whole array, which
    /// is faster and allocates less per element. A failure
    /// reports the element's position as the first step of its path (`[3].text`), as mapping the
    /// array would.
    func mapEach<Source: Encodable, Target: Decodable>(
        _ values: [Source], to type: Target.Type, with mapper: EntityMapper
    ) throws -> [Target] {
        // The index of the element being mapped, for the error's path.
        var index = 0
        do {
            return try values.map { value in
                let mapped = try mapper.map(value, to: Target.self)
                index += 1
                return mapped
            }
        } catch let error as MappingError {
            throw error.inArray(at: index)
        }
    }
}
