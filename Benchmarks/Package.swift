// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in their own package so that DAOKit itself keeps no dependencies: only this
// package pulls in package-benchmark (and, through it, malloc-interposer).
let package = Package(
    name: "DAOKitBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, because a path dependency is otherwise identified by its folder name, which
        // differs between clones (`main`, `DAOKit`, ...).
        .package(name: "DAOKit", path: ".."),
        // Only the MallocInterposer trait: it gives the malloc metrics. Naming the trait list also
        // turns off the default RuntimeInterposer trait, whose extra package is not needed here.
        .package(
            url: "https://github.com/ordo-one/package-benchmark",
            exact: "1.38.1",
            traits: ["MallocInterposer"]
        ),
        // Already a dependency of package-benchmark; named here so `ratios` can count allocations
        // with the same interposer that gives package-benchmark its malloc metrics. 1.6.1 for its
        // per-allocation hook, through which `ratios` counts one thread's allocations.
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", exact: "1.6.1"),
        // SQLite through GRDB, the library Swift apps would use instead: the yardstick of the `query`
        // section (DAOKit's queries on the same data) and of the `sqlite` section.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The messenger models, their storage entities and the hand-written translators.
        // They conform to DAOKit's `Storable`, ready for the DAO and storage benchmarks.
        .target(
            name: "BenchmarkModels",
            dependencies: [.product(name: "DAOKit", package: "DAOKit")]
        ),
        // Every way of converting the models (manual, EntityMapper, JSON, binary plist), shared by
        // the package-benchmark suite and `ratios` so both measure exactly the same work.
        .target(
            name: "MappingWorkloads",
            dependencies: [
                "BenchmarkModels",
                .product(name: "DAOKit", package: "DAOKit"),
            ]
        ),
        // The DAO and file-storage workloads (BaseDao next to the same work by hand, FileStorageContext
        // next to the same I/O by hand), shared by the package-benchmark suite and `ratios`.
        .target(
            name: "StorageWorkloads",
            dependencies: [
                "BenchmarkModels",
                .product(name: "DAOKit", package: "DAOKit"),
                .product(name: "DAOKitFileStore", package: "DAOKit"),
            ]
        ),
        // package-benchmark discovers suites in `Benchmarks/<Name>/`; run with
        // `swift package --package-path Benchmarks benchmark`.
        .executableTarget(
            name: "Mapping",
            dependencies: [
                "MappingWorkloads",
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/Mapping",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "Storage",
            dependencies: [
                "StorageWorkloads",
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/Storage",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // Runs one mapping workload n times, for `Scripts/instruction-counts.sh` to count its
        // instructions under callgrind.
        .executableTarget(
            name: "instructions",
            dependencies: ["BenchmarkModels", "MappingWorkloads"]
        ),
        // Interleaved ratio measurements: `swift run -c release --package-path Benchmarks ratios`.
        .executableTarget(
            name: "ratios",
            dependencies: [
                "BenchmarkModels",
                "MappingWorkloads",
                "StorageWorkloads",
                .product(name: "DAOKit", package: "DAOKit"),
                .product(name: "DAOKitFileStore", package: "DAOKit"),
                .product(name: "DAOKitSQLite", package: "DAOKit"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
