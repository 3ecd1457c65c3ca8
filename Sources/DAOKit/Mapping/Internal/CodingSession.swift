#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// An encoder, a decoder and the arena they share, reused by every `map` call on one thread.
///
/// Creating coders and containers per call is most of what a naive Codable converter spends its
/// time on, so each thread keeps one session in thread-local storage and `map` borrows it.
/// Sessions are never shared between threads, which is what makes the unchecked exclusivity and
/// unsynchronised state of the coders sound. A call made while the thread's session is already
/// borrowed — a type whose `encode(to:)` calls `map` itself — gets a fresh session for itself.
final class CodingSession {
    let arena = CodingArena()
    let encoder: MappingEncoder
    let decoder: MappingDecoder
    /// Whether a `map` call on this thread is using the session.
    private var isBorrowed = false
    /// Whether this session lives in thread-local storage (rather than serving one re-entrant call).
    private let isThreadLocal: Bool

    private init(isThreadLocal: Bool) {
        self.isThreadLocal = isThreadLocal
        let placeholder = ContainerNode()
        placeholder.values.append(.null)
        encoder = MappingEncoder(arena: arena, target: placeholder, slot: 0)
        decoder = MappingDecoder(arena: arena, node: placeholder, index: 0)
    }

    /// Runs `body` with this thread's session, or a fresh one when it is already in use.
    @inline(__always)
    static func withSession<R>(_ body: (CodingSession) throws -> R) rethrows -> R {
        let session = borrow()
        defer { session.giveBack() }
        return try body(session)
    }

    private static func borrow() -> CodingSession {
        guard let threadSessionKey else { return CodingSession(isThreadLocal: false) }
        if let raw = pthread_getspecific(threadSessionKey) {
            let session = Unmanaged<CodingSession>.fromOpaque(raw).takeUnretainedValue()
            if !session.isBorrowed {
                session.isBorrowed = true
                return session
            }
            return CodingSession(isThreadLocal: false)
        }
        let session = CodingSession(isThreadLocal: true)
        // The thread-specific slot owns one reference; the key's destructor releases it when
        // the thread exits.
        pthread_setspecific(threadSessionKey, Unmanaged.passRetained(session).toOpaque())
        session.isBorrowed = true
        return session
    }

    private func giveBack() {
        // New level numbers invalidate every handle and single-value container user code kept
        // from this call.
        encoder.level = arena.nextLevel()
        decoder.level = arena.nextLevel()
        arena.reset()
        encoder.endCall()
        decoder.endCall()
        if isThreadLocal { isBorrowed = false }
    }
}

/// The thread-specific-data key under which each thread keeps its ``CodingSession``; `nil` in
/// the unlikely case that the process has used up its thread keys, when every call makes a fresh
/// session: slower, never wrong.
private let threadSessionKey: pthread_key_t? = {
    var key = pthread_key_t()
    guard pthread_key_create(&key, releaseThreadSession) == 0 else { return nil }
    return key
}()

#if canImport(Darwin)
    private func releaseThreadSession(_ raw: UnsafeMutableRawPointer) {
        Unmanaged<CodingSession>.fromOpaque(raw).release()
    }
#else
    private func releaseThreadSession(_ raw: UnsafeMutableRawPointer?) {
        guard let raw else { return }
        Unmanaged<CodingSession>.fromOpaque(raw).release()
    }
#endif
