// swift-tools-version: 6.0
import PackageDescription

// One module per part (see ARCHITECTURE.md for the picture and the data flow). The core product,
// DAOKit, needs no system library: an app (or a Linux server that only wants PostgreSQL) that links
// only DAOKit builds without SQLite's development files. Each heavier back end is a product of its
// own, and DAOKitAll re-exports every one of them for apps that want a single import.
let package = Package(
    name: "DAOKit",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "DAOKit", targets: ["DAOKit"]),
        .library(name: "DAOKitSQL", targets: ["DAOKitSQL"]),
        .library(name: "DAOKitSQLite", targets: ["DAOKitSQLite"]),
        .library(name: "DAOKitFileStore", targets: ["DAOKitFileStore"]),
        .library(name: "DAOKitAll", targets: ["DAOKitAll"]),
        .library(name: "DAOKitTesting", targets: ["DAOKitTesting"]),
        .executable(name: "dao", targets: ["dao"]),
    ],
    targets: [
        // What DAOKit needs from C on every platform: relaxed atomics, the thread's stack bounds.
        .target(name: "CDAOKitSupport"),
        // The small helpers every module shares (a lock around state, thread naming, the cancellation
        // flag of a blocking call, the error of a failed system call). Internal: no product exports
        // it, and its API is `package`, so nothing of it reaches DAOKit's clients.
        .target(name: "DAOKitInternals", dependencies: ["CDAOKitSupport"]),
        // The core: EntityMapper, BaseDao, the storage protocols, the query model and its translation
        // from Predicate, observation, the in-memory and key-value contexts. No system library.
        .target(
            name: "DAOKit",
            dependencies: ["CDAOKitSupport", "DAOKitInternals"],
            exclude: ["Mapping/Internal/Unsafe/README.md"]
        ),
        // Public building blocks of SQL contexts: queries translated to SQL, quoting, entities as JSON
        // records. What the SQLite context, the PostgreSQL package and a third party's SQL context use.
        .target(name: "DAOKitSQL", dependencies: ["DAOKit"]),
        // The system SQLite, without a package: the SDK's on Apple platforms; on Linux the
        // libsqlite3-dev package (headers and pkg-config file), which `.ci/run` checks for first.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // SQLiteStorageContext over the system SQLite.
        .target(name: "DAOKitSQLite", dependencies: ["DAOKit", "DAOKitSQL", "DAOKitInternals", "CSQLite"]),
        // The file store's on-disk format, shared by the file store and the `dao` tool so that both
        // read a store the same way: confined file-system access, names, journal, envelope, lock.
        // Internal: no product exports it, and its API is `package`.
        .target(name: "DAOKitStoreFormat", dependencies: ["CDAOKitSupport", "DAOKitInternals"]),
        // FileStorageContext: one file per record in a directory, journal, recovery.
        .target(name: "DAOKitFileStore", dependencies: ["DAOKit", "DAOKitInternals", "DAOKitStoreFormat"]),
        // One import for everything DAOKit ships (`import DAOKitAll`); needs SQLite like DAOKitSQLite.
        .target(name: "DAOKitAll", dependencies: ["DAOKit", "DAOKitSQL", "DAOKitSQLite", "DAOKitFileStore"]),
        // The storage-context contract and the query differential suites, for any context.
        .target(name: "DAOKitTesting", dependencies: ["DAOKit", "DAOKitInternals"]),
        // What more than one test target needs (one way to make every shipped context, a throwaway
        // SQLite database, plain SQLite to damage it with), kept once; no product exports it, and its
        // API is `package`.
        .target(
            name: "DAOKitTestSupport",
            dependencies: [
                "DAOKit", "DAOKitInternals", "DAOKitSQLite", "DAOKitFileStore", "DAOKitStoreFormat", "CSQLite",
            ]
        ),
        // Child process for the file store's and the SQLite context's crash and multi-process tests
        // (killed with SIGKILL).
        .executableTarget(name: "DAOKitCrashWriter", dependencies: ["DAOKit", "DAOKitFileStore", "DAOKitSQLite"]),
        // The `dao` tool's commands, in a library so that the tests can call them directly.
        .target(
            name: "DAOCommandLine",
            dependencies: [
                "DAOKit", "DAOKitSQL", "DAOKitSQLite", "DAOKitFileStore", "DAOKitStoreFormat", "DAOKitInternals",
                "CSQLite",
            ]
        ),
        // `swift run dao demo`: only forwards the arguments to DAOCommandLine and exits with its status.
        .executableTarget(name: "dao", dependencies: ["DAOCommandLine"]),
        // One test target per module, each with folders mirroring its module's. Suites that check a
        // promise on every shipped context (queries, observation, reentrancy) are the core's: they
        // make the back ends' contexts through DAOKitTestSupport's ContextFactory.
        .testTarget(name: "DAOKitInternalsTests", dependencies: ["DAOKitInternals"]),
        .testTarget(
            name: "DAOKitTests",
            dependencies: [
                "DAOKit", "DAOKitInternals", "DAOKitTesting", "DAOKitTestSupport", "DAOKitFileStore", "DAOKitSQLite",
            ]
        ),
        .testTarget(name: "DAOKitSQLTests", dependencies: ["DAOKitSQL", "DAOKit", "CSQLite"]),
        .testTarget(
            name: "DAOKitSQLiteTests",
            dependencies: ["DAOKitSQLite", "DAOKitSQL", "DAOKit", "DAOKitTesting", "DAOKitTestSupport"]
        ),
        .testTarget(name: "DAOKitStoreFormatTests", dependencies: ["DAOKitStoreFormat", "DAOKitInternals"]),
        .testTarget(
            name: "DAOKitFileStoreTests",
            dependencies: [
                "DAOKitFileStore", "DAOKit", "DAOKitInternals", "DAOKitStoreFormat", "DAOKitTesting",
                "DAOKitTestSupport",
            ]
        ),
        .testTarget(name: "DAOKitTestingTests", dependencies: ["DAOKitTesting", "DAOKit", "DAOKitTestSupport"]),
        // Documentation samples: the generator (also run by DocSampleTests to check that the committed
        // test files are current), its command, and the tests it writes from README.md and the DocC
        // articles. Test infrastructure only, under Tests/; no product exports it.
        .target(name: "DocSampleGenerator", path: "Tests/DocSampleGenerator"),
        .executableTarget(
            name: "generate-doc-samples", dependencies: ["DocSampleGenerator"], path: "Tests/GenerateDocSamples"),
        .testTarget(
            name: "DocSampleTests",
            dependencies: [
                "DocSampleGenerator", "DAOKit", "DAOKitSQL", "DAOKitSQLite", "DAOKitFileStore", "DAOKitTesting",
            ]
        ),
        .testTarget(
            name: "DAOCommandLineTests",
            dependencies: [
                "DAOCommandLine", "DAOKit", "DAOKitSQLite", "DAOKitFileStore", "DAOKitStoreFormat", "DAOKitTestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
