// swift-tools-version: 6.0
import PackageDescription

// Compiles and runs the samples of DAOKit's articles that need a server framework (Hummingbird),
// which DAOKit itself may not depend on. The test files under Tests/ServerDocSampleTests/Generated
// are written by `swift run generate-doc-samples` in DAOKit's package from the articles; DAOKit's
// DocSampleFreshnessTests fails when they are stale. A package of its own, so that neither DAOKit
// nor the PostgreSQL package (and its users) resolves Hummingbird.
let package = Package(
    name: "ServerDocSamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "DAOKit", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", exact: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
    ],
    targets: [
        .testTarget(
            name: "ServerDocSampleTests",
            dependencies: [
                .product(name: "DAOKit", package: "DAOKit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
