import CDAOKitSupport

/// How deep a value may nest.
enum NestingLimits {
    /// Up to this depth the mapper does not look at the stack: every thread has room for it.
    static let unchecked = 64
    /// Stack the mapper leaves free below a nesting level it starts, for that level's own
    /// `encode(to:)`/`init(from:)`, for building and unwinding an error, and for whatever the runtime
    /// does on that stack (ThreadSanitizer's runtime was seen overflowing a 128 KiB reserve).
    static let stackReserve: UInt = 256 << 10
    /// Beyond this depth a value is reported as corrupt whatever the stack.
    static let absolute = 100_000
}

/// Refuses a nesting level that could overflow the calling thread's stack.
///
/// The mapper recurses once per nesting level, on the caller's thread: user code at every depth sees
/// the caller's task-local values and actor isolation, which it would not on another thread. So the
/// depth a value can reach is what the caller's stack holds — thousands of levels on a main thread or
/// a default Linux thread (8 MiB), a few hundred on a 512 KiB secondary thread. A value nesting deeper
/// is a `MappingError` of kind `dataCorrupted` at the level that would not fit, never a crash; a caller
/// with such values maps them on a thread with a larger stack (`Thread.stackSize`).
///
/// Past ``NestingLimits/unchecked`` levels, each level compares the current frame address with the
/// lowest address it lets the stack reach: the thread's stack bottom plus ``NestingLimits/stackReserve``,
/// found once per session (sessions never change threads). Where the platform cannot tell the bottom,
/// only ``NestingLimits/absolute`` applies.
struct StackGuard {
    /// The lowest frame address a new level may start at; 0 when unknown.
    private var floor: UInt = 0
    private var isFloorKnown = false

    /// Throws when `depth` levels are more than the limits allow.
    /// - Throws: `DecodingError.dataCorrupted` at `path`, marked as the mapper's own error.
    @inline(never)
    mutating func check(depth: Int, at path: @autoclosure () -> [any CodingKey]) throws {
        if depth > NestingLimits.absolute {
            throw nestingError("The value nests deeper than \(NestingLimits.absolute) levels", at: path())
        }
        if !isFloorKnown {
            let bottom = UInt(daokit_current_thread_stack_low())
            floor = bottom == 0 ? 0 : bottom + NestingLimits.stackReserve
            isFloorKnown = true
        }
        if floor != 0, UInt(daokit_frame_address()) < floor {
            throw nestingError(
                "The value nests \(depth) levels deep, more than the stack of the thread mapping it holds; "
                    + "map it on a thread with a larger stack",
                at: path())
        }
    }

    private func nestingError(_ message: String, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(
            DecodingError.Context(codingPath: path, debugDescription: message, underlyingError: MapperMisuse()))
    }
}
