// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DAOKit",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "DAOKit", targets: ["DAOKit"]),
        .library(name: "DAOKitTesting", targets: ["DAOKitTesting"]),
        .executable(name: "dao", targets: ["dao"]),
    ],
    targets: [
        // What DAOKit needs from C on every platform: relaxed atomics, the thread's stack bounds.
        .target(name: "CDAOKitSupport"),
        // The system SQLite, without a package: the SDK's on Apple platforms; on Linux the
        // libsqlite3-dev package (headers and pkg-config file), which `.ci/run` checks for first.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The file store's on-disk format, shared by the library and the `dao` tool so that both read
        // a store the same way: confined file-system access, names, journal, envelope, lock. Internal:
        // no product exports it, and its API is `package`, so nothing of it reaches DAOKit's clients.
        .target(name: "DAOKitStoreFormat", dependencies: ["CDAOKitSupport"]),
        .target(
            name: "DAOKit",
            dependencies: ["CDAOKitSupport", "DAOKitStoreFormat", "CSQLite"],
            exclude: ["Mapping/Unsafe/README.md"]
        ),
        .target(name: "DAOKitTesting", dependencies: ["DAOKit", "DAOKitStoreFormat"]),
        // What more than one test target needs (a throwaway SQLite database, plain SQLite to damage
        // it with), kept once; no product exports it, and its API is `package`.
        .target(name: "DAOKitTestSupport", dependencies: ["DAOKit", "CSQLite"]),
        // Child process for the file store's crash and multi-process tests (killed with SIGKILL).
        .executableTarget(name: "DAOKitCrashWriter", dependencies: ["DAOKit"]),
        // The `dao` tool's commands, in a library so that the tests can call them directly.
        .target(name: "DAOCommandLine", dependencies: ["DAOKit", "DAOKitStoreFormat", "CSQLite"]),
        // `swift run dao demo`: only forwards the arguments to DAOCommandLine and exits with its status.
        .executableTarget(name: "dao", dependencies: ["DAOCommandLine"]),
        // One test target per module, each with folders mirroring its module's.
        .testTarget(name: "DAOKitStoreFormatTests", dependencies: ["DAOKitStoreFormat"]),
        .testTarget(name: "DAOKitTests", dependencies: ["DAOKit", "DAOKitStoreFormat", "DAOKitTesting", "DAOKitTestSupport", "CSQLite"]),
        .testTarget(name: "DAOCommandLineTests", dependencies: ["DAOCommandLine", "DAOKit", "DAOKitStoreFormat", "DAOKitTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
