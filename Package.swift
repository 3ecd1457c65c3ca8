// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DAOKit",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "DAOKit", targets: ["DAOKit"]),
        .library(name: "DAOKitTesting", targets: ["DAOKitTesting"]),
    ],
    targets: [
        .target(name: "DAOKit"),
        .target(name: "DAOKitTesting", dependencies: ["DAOKit"]),
        // Child process for the file store's crash and multi-process tests (killed with SIGKILL).
        .executableTarget(name: "DAOKitCrashWriter", dependencies: ["DAOKit"]),
        .testTarget(name: "DAOKitTests", dependencies: ["DAOKit", "DAOKitTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
