import DAOKit
import DAOKitFileStore
import DAOKitSQLite
import Foundation

/// A way to make a fresh, empty context of one kind, for tests parameterized over every context:
/// the one way the test targets make DAOKit's shipped contexts.
package struct ContextFactory: Sendable, CustomStringConvertible {
    /// A context and what to do when the test is done with it.
    package struct Fresh {
        package let context: any StorageContext
        package let cleanUp: @Sendable () -> Void

        package init(context: any StorageContext, cleanUp: @escaping @Sendable () -> Void) {
            self.context = context
            self.cleanUp = cleanUp
        }
    }

    package let description: String
    package let make: @Sendable () throws -> Fresh

    package init(description: String, make: @escaping @Sendable () throws -> Fresh) {
        self.description = description
        self.make = make
    }

    package static let memory = ContextFactory(description: "memory") {
        Fresh(context: InMemoryStorageContext(), cleanUp: {})
    }

    package static let keyValueInMemory = ContextFactory(description: "keyValue(InMemoryKeyValueStore)") {
        Fresh(context: KeyValueStorageContext(store: InMemoryKeyValueStore()), cleanUp: {})
    }

    package static let keyValueUserDefaults = ContextFactory(description: "keyValue(UserDefaults)") {
        let suite = TemporarySuite()
        return Fresh(context: KeyValueStorageContext(store: suite.defaults), cleanUp: suite.remove)
    }

    /// A file store of JSON records in a fresh temporary directory.
    package static let fileJSON = ContextFactory(description: "file(JSON)") {
        let directory = FileTestDirectory()
        return Fresh(context: try FileStorageContext(directory: directory.url), cleanUp: directory.remove)
    }

    /// A file store of property-list records in a fresh temporary directory.
    package static let filePropertyList = ContextFactory(description: "file(propertyList)") {
        let directory = FileTestDirectory()
        return Fresh(
            context: try FileStorageContext(directory: directory.url, format: .propertyList), cleanUp: directory.remove)
    }

    /// An SQLite database file in a fresh temporary directory.
    package static let sqliteFile = ContextFactory(description: "sqlite(file)") {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daokit-query-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let context = try SQLiteStorageContext(file: directory.appendingPathComponent("store.sqlite"))
        return Fresh(context: context, cleanUp: { try? FileManager.default.removeItem(at: directory) })
    }

    /// The contexts the core module (`DAOKit`) ships: in memory, key-value over memory and over
    /// `UserDefaults`. The file store and SQLite are in ``everyShipped``.
    package static let core: [ContextFactory] = [.memory, .keyValueInMemory, .keyValueUserDefaults]

    /// Every context DAOKit ships: in memory, key-value over memory and over `UserDefaults`, files
    /// (JSON records in a fresh temporary directory) and SQLite (a database file).
    package static let everyShipped: [ContextFactory] = core + [fileJSON, sqliteFile]

    /// The shipped contexts that conform to `TransactionalStorageContext`: the transaction suites
    /// run on each, so a context that gains transactions joins them here.
    package static let transactional: [ContextFactory] = [
        .memory, .keyValueInMemory, .keyValueUserDefaults, .fileJSON, .sqliteFile,
    ]

    /// The shipped contexts that keep unique indexes (`StorageIndex(…, unique: true)`): the
    /// unique-index suites run on each, so a context that gains them joins here.
    package static let keepingUniqueIndexes: [ContextFactory] = core + [fileJSON, filePropertyList, sqliteFile]

    /// The contexts of ``keepingUniqueIndexes`` that are also in ``transactional``.
    package static var transactionalKeepingUniqueIndexes: [ContextFactory] {
        let names = Set(transactional.map(\.description))
        return keepingUniqueIndexes.filter { names.contains($0.description) }
    }

    /// The shipped contexts that evaluate queries on entities in Swift, reading (decoding, and
    /// encoding to read fields) what the query needs — so a record that cannot be read or encoded
    /// fails a query as the full scan does. SQLite is not one: it evaluates on the stored columns
    /// and decodes only the rows a query returns, so such a record fails only the queries that
    /// return it (its own record tests cover that).
    package static let evaluatingInSwift: [ContextFactory] = core + [fileJSON]
}

/// A `UserDefaults` suite with a unique name, removed from memory and disk by ``remove()``.
package struct TemporarySuite: Sendable {
    package let name = "daokit.tests.\(UUID().uuidString)"
    package var defaults: UserDefaults { UserDefaults(suiteName: name)! }

    package init() {}

    package func remove() {
        let defaults = defaults
        defaults.removePersistentDomain(forName: name)
        // On Linux the property list is rewritten (here: deleted) only by synchronize().
        _ = defaults.synchronize()
    }
}
