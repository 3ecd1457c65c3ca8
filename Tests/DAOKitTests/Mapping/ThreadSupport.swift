import Foundation

/// Runs `body` on a new `Thread` with a `stackSize`-byte stack and returns what it returns: how a
/// caller maps values nested deeper than its own thread's stack holds.
func onThread<R: Sendable>(stackSize: Int, _ body: @escaping @Sendable () throws -> R) async throws -> R {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = stackSize
        thread.start()
    }
}

/// Stack sizes the deep-nesting tests choose: a small secondary thread as on Apple platforms, and
/// one large enough for the mapper's absolute nesting limit even in a sanitized debug build.
enum StackSizes {
    static let small = 512 << 10
    static let huge = 2 << 30
}
