#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Runs the deeper part of a conversion on a thread with a large stack.
///
/// The mapper recurses once per nesting level, and a secondary thread or a Swift concurrency thread
/// may have as little as 512 KiB of stack. Rather than refuse deep values the way JSON decoders do
/// (512 levels), a conversion that reaches ``NestingLimits/onCallerThread`` levels hands the nested
/// value to a thread with a ``NestingLimits/deepStackSize`` stack and waits for it: the work goes on
/// where it stopped, nothing runs twice. (User code for those deep levels therefore runs on that
/// thread; `map` documents it.)
///
/// While the helper thread runs, the calling thread only waits in `pthread_join`, so the coders'
/// unsynchronised state is never touched by two threads at once, and the join orders every write
/// of one before every read of the other.
enum DeepStack {
    /// Runs `work` on a new thread with a large stack and returns its result or error.
    /// - Throws: what `work` throws; `DeepStackUnavailable` when no such thread can be started.
    static func run<R>(_ work: () throws -> R) throws -> R {
        try withoutActuallyEscaping(work) { work in
            let box = WorkBox(work: work)
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setstacksize(&attributes, NestingLimits.deepStackSize)
            let context = Unmanaged.passRetained(box).toOpaque()
            #if canImport(Darwin)
            var thread: pthread_t?
            #else
            var thread = pthread_t()
            #endif
            let status = pthread_create(&thread, &attributes, runWorkBox, context)
            guard status == 0 else {
                Unmanaged<AnyObject>.fromOpaque(context).release()
                throw DeepStackUnavailable(status: status)
            }
            #if canImport(Darwin)
            pthread_join(thread!, nil)
            #else
            pthread_join(thread, nil)
            #endif
            return try box.takeResult()
        }
    }

    /// Holds the work and its result while the helper thread runs.
    ///
    /// Only one thread touches it at a time (the helper until it finishes, the caller after
    /// `pthread_join`), which is why the unchecked `Sendable` is sound. The work closure is dropped
    /// as soon as it has run, so nothing refers to the non-escaping closure by the time
    /// `withoutActuallyEscaping` checks.
    private final class WorkBox<R>: @unchecked Sendable, DeepStackWork {
        private var work: (() throws -> R)?
        private var result: Result<R, any Error>?

        init(work: @escaping () throws -> R) {
            self.work = work
        }

        func run() {
            guard let work else { return }
            self.work = nil
            result = Result { try work() }
        }

        func takeResult() throws -> R {
            guard let result else { throw DeepStackUnavailable(status: -1) }
            return try result.get()
        }
    }
}

/// What the helper thread's C entry point can call without knowing the work's result type.
private protocol DeepStackWork: AnyObject {
    func run()
}

#if canImport(Darwin)
private func runWorkBox(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    (Unmanaged<AnyObject>.fromOpaque(context).takeRetainedValue() as? any DeepStackWork)?.run()
    return nil
}
#else
private func runWorkBox(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    (Unmanaged<AnyObject>.fromOpaque(context).takeRetainedValue() as? any DeepStackWork)?.run()
    return nil
}
#endif

/// Thrown when a value nests deeper than the caller's stack allows and no thread with a large stack
/// could be started to go on.
struct DeepStackUnavailable: Error, CustomStringConvertible {
    let status: Int32
    var description: String {
        "no thread with a large stack could be started for a deeply nested value (pthread_create: \(status))"
    }
}
