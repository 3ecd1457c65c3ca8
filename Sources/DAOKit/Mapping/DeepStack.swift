import Foundation

/// Runs a conversion on a thread with a large stack, for values nested too deeply for the
/// caller's thread.
///
/// The mapper recurses once per nesting level, and a secondary thread or a Swift concurrency
/// thread may have as little as 512 KiB of stack. Rather than limit depth the way JSON decoders do
/// (512 levels), a conversion that nests deeper than ``NestingLimits/onCallerThread`` is redone
/// here. The caller blocks until the work is done: deep values are rare, and this keeps `map`
/// synchronous.
enum DeepStack {
    static func run<R>(_ work: () throws -> R) throws -> R {
        try withoutActuallyEscaping(work) { work in
            // The box crosses to the other thread while this one waits on the semaphore, so the
            // two never touch it at the same time; that is why the unchecked Sendable is sound.
            let box = WorkBox(work: work)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                box.run()
                done.signal()
            }
            thread.stackSize = NestingLimits.deepStackSize
            thread.start()
            done.wait()
            return try box.result!.get()
        }
    }

    private final class WorkBox<R>: @unchecked Sendable {
        private var work: (() throws -> R)?
        var result: Result<R, any Error>?

        init(work: @escaping () throws -> R) {
            self.work = work
        }

        /// Runs the work once and drops it, so that nothing refers to the non-escaping closure
        /// by the time `withoutActuallyEscaping` checks, even if the thread object lingers.
        func run() {
            guard let work else { return }
            self.work = nil
            result = Result { try work() }
        }
    }
}
