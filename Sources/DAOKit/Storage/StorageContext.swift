/// A place where ``Storable`` entities live: memory, a key-value store, files, a database.
///
/// Every context is `Sendable` and safe to use from many threads at once. Implementations promise:
/// - ``save(_:)`` inserts or replaces records by id, and a batch is all or nothing: when it throws,
///   the store holds exactly what it held before the call;
/// - a record that cannot be read is a ``StorageError`` naming it, and never hides the others;
/// - ``delete(_:ids:)`` ignores ids it does not have;
/// - user code it can run outside its lock (`id` getters, ``StorageKey/storageKey``,
///   ``Storable/entityName``, `encode(to:)`) it runs outside, so that code may call the context
///   again; a call made from code that must run under the lock (a store's callbacks) throws
///   ``StorageError/Kind/reentrantCall`` rather than deadlock.
///
/// To check a context of your own against these promises, call the contract suite in the
/// `DAOKitTesting` library from your tests.
public protocol StorageContext: Sendable {
    /// Inserts or replaces `entities` by id, all or nothing.
    /// - Throws: ``StorageError`` when an entity cannot be encoded or written; nothing is written then.
    func save<E: Storable>(_ entities: [E]) throws
    /// Saves `entities` as `mode` says: insert or replace (``SaveMode/upsert``), insert only
    /// (``SaveMode/insert``) or replace only (``SaveMode/update``), all or nothing.
    ///
    /// A default implementation checks with ``fetch(_:id:)`` and then calls ``save(_:)``; it is
    /// correct but not atomic, because another writer can slip in between the check and the write.
    /// Contexts should implement this method so that the check and the write happen under one lock
    /// or transaction; the contexts shipped with DAOKit do. ``BaseDao/create(_:)-83k4d`` and
    /// ``BaseDao/update(_:)-64hmr`` rely on it.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/duplicateID`` (insert: an id is already
    ///   stored, or appears twice in `entities`) or ``StorageError/Kind/missingID`` (update: an id
    ///   is not stored), naming the first offending entity and key; or any error ``save(_:)``
    ///   throws. Nothing is written when it throws.
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws
    /// The entity stored under `id`, or `nil` when there is none.
    /// - Throws: ``StorageError`` when the record exists but cannot be read or decoded.
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E?
    /// Every stored entity of the type, in no particular order.
    /// - Throws: ``StorageError`` naming a record that cannot be read or decoded.
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E]
    /// Removes the entities with these ids, all or nothing; unknown ids are ignored.
    /// - Throws: ``StorageError`` when the store cannot be written.
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws
    /// Removes every entity of the type.
    /// - Throws: ``StorageError`` when the store cannot be written.
    func deleteAll<E: Storable>(_ type: E.Type) throws
    /// How many entities of the type are stored.
    /// - Throws: ``StorageError`` when the store cannot be read.
    func count<E: Storable>(_ type: E.Type) throws -> Int

    /// Every entity of the type that can be read, and beside them every record that cannot, with
    /// its key and error: one bad record does not hide the others.
    ///
    /// The default calls ``fetchAll(_:)`` and so cannot read past a bad record (see
    /// `StorageContext+Salvage.swift`); the contexts shipped with DAOKit can.
    /// - Throws: ``StorageError`` only when the type's records cannot be listed at all.
    func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID>
    /// The storage keys of every stored record of the type, readable or not, without decoding
    /// any; in no particular order.
    ///
    /// The default decodes every record with ``fetchAll(_:)`` and throws when one cannot be read.
    /// - Throws: ``StorageError`` when the records cannot be listed.
    func storedKeys<E: Storable>(_ type: E.Type) throws -> [String]
    /// Removes the records under these storage keys, without reading them, with the guarantees
    /// of ``delete(_:ids:)``; unknown keys are ignored. Removes a record that no longer decodes,
    /// and one whose key does not even spell an `E.ID`.
    ///
    /// The default converts the keys to ids and ignores those that do not convert.
    /// - Throws: ``StorageError`` when the store cannot be written.
    func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws

    /// The entities `query` selects: those its filter holds for, in its order, paged.
    ///
    /// The default reads every entity and evaluates the query in Swift (see
    /// `StorageContext+Query.swift`); a context that can select without reading everything (an
    /// index, SQL) implements it. Whatever it does, the result must be what
    /// ``StorageQuery/apply(to:)`` returns on ``fetchAll(_:)``, except for the order of entities
    /// the sort leaves tied.
    /// - Throws: ``StorageError`` when a record the query needs cannot be read or decoded.
    func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E]
    /// How many entities `filter` holds for.
    /// - Throws: ``StorageError`` when a record the count needs cannot be read or decoded.
    func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws -> Int
    /// Removes the entities `filter` holds for, all or nothing.
    /// - Throws: ``StorageError`` when a record cannot be read or the store cannot be written;
    ///   nothing is removed then.
    func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws

    /// Where this context announces its committed writes (see ``StorageChangeNotifier``), which
    /// ``BaseDao``'s `observe` methods follow; `nil` for a context that does not announce them, whose
    /// observations deliver their first result only. The default is `nil`; the contexts shipped
    /// with DAOKit announce every write, and the file store also other processes' writes.
    var changeNotifier: StorageChangeNotifier? { get }

    /// Removes every entity of every type the store holds, all or nothing: when it throws, the
    /// store holds what it held before (a file store also across a crash: see its documentation).
    /// Announces ``StorageChange/everything``.
    ///
    /// The default throws ``StorageError`` of kind `.io` saying the context cannot reset: a
    /// context knows which types it holds, a protocol extension does not.
    /// - Throws: ``StorageError`` when the store cannot be written; nothing is removed then.
    func reset() throws
}
