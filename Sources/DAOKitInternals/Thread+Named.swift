import CDAOKitSupport
import Foundation

extension Thread {
    /// Starts a thread that names itself `name`, then runs `body`.
    ///
    /// The thread names itself through pthreads, because Foundation's `Thread.name` on Linux does
    /// not reliably reach the system (set before `start()` it is lost, and set at the start of the
    /// thread it sometimes is too), and debuggers, `top -H` and crash reports show the system's
    /// name. Linux keeps a name only if it fits in 15 bytes and refuses a longer one whole, so
    /// `name` must be that short, which is checked.
    package static func start(named name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        precondition(
            name.utf8.count <= 15, "thread name \(name.debugDescription) is longer than Linux keeps (15 bytes)")
        let thread = Thread {
            _ = daokit_set_current_thread_name(name)
            body()
        }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// The calling thread's name as the system knows it (`""` when it has none or cannot tell).
    package static var currentSystemName: String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard daokit_current_thread_name(&buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
