// swift-tools-version: 6.0
import PackageDescription

// PostgreSQL for DAOKit, in a package of its own so that DAOKit itself keeps no package
// dependencies: only apps that add this package pull in postgres-nio (and SwiftNIO through it).
let package = Package(
    name: "DAOKitPostgres",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "DAOKitPostgres", targets: ["DAOKitPostgres"])
    ],
    dependencies: [
        // Named, because a path dependency is otherwise identified by its folder name, which
        // differs between clones (`main`, `DAOKit`, ...).
        .package(name: "DAOKit", path: "../.."),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        // Already a dependency of postgres-nio; named for its no-op log handler (the context logs nothing).
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
    ],
    targets: [
        .target(
            name: "DAOKitPostgres",
            dependencies: [
                .product(name: "DAOKit", package: "DAOKit"),
                .product(name: "DAOKitSQL", package: "DAOKit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // For the error its pool throws when it refuses calls (see PostgresFailure.swift).
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What the tests and their writer child share (the entity both store); no product exports it.
        .target(name: "DAOKitPostgresTestSupport", dependencies: [.product(name: "DAOKit", package: "DAOKit")]),
        // Child process of the multi-process, restart and cross-process observation tests.
        .executableTarget(
            name: "DAOKitPostgresWriter",
            dependencies: [
                "DAOKitPostgres",
                "DAOKitPostgresTestSupport",
                .product(name: "DAOKit", package: "DAOKit"),
            ]
        ),
        // `Scripts/with-throwaway-server.sh swift run -c release postgres-ratios`: BaseDao over
        // PostgresStorageContext against the same operations written by hand with postgres-nio.
        .executableTarget(
            name: "postgres-ratios",
            dependencies: [
                "DAOKitPostgres",
                .product(name: "DAOKit", package: "DAOKit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The samples of DAOKit's articles that use this package, written by `swift run
        // generate-doc-samples` in DAOKit's package (see its CONTRIBUTING.md); compiling them is the check.
        .testTarget(
            name: "DAOKitPostgresDocSampleTests",
            dependencies: ["DAOKitPostgres", .product(name: "DAOKit", package: "DAOKit")]
        ),
        .testTarget(
            name: "DAOKitPostgresTests",
            dependencies: [
                "DAOKitPostgres",
                "DAOKitPostgresWriter",
                "DAOKitPostgresTestSupport",
                .product(name: "DAOKit", package: "DAOKit"),
                .product(name: "DAOKitSQL", package: "DAOKit"),
                .product(name: "DAOKitTesting", package: "DAOKit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
