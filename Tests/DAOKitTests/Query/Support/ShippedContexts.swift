import DAOKit
import Foundation

extension ContextFactory {
    /// Every context DAOKit ships: in memory, key-value over memory and over `UserDefaults`, and
    /// files (JSON records in a fresh temporary directory).
    static let everyShipped: [ContextFactory] = all + [fileJSON]
}
