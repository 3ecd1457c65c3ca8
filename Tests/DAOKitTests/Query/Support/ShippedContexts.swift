import DAOKit
import Foundation

extension ContextFactory {
    /// A ``FileStorageContext`` in a fresh temporary directory, removed afterwards.
    static let files = ContextFactory(description: "files") {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("daokit-query-\(UUID().uuidString)", isDirectory: true)
        return Fresh(context: try FileStorageContext(directory: directory)) {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Every context DAOKit ships: in memory, key-value over memory and over `UserDefaults`, files.
    static let everyShipped: [ContextFactory] = all + [files]
}
