#if os(Linux)
    import Glibc

    /// Restarts `ratios` with libc's allocator in front of the malloc interposer, so that timings are
    /// not slowed by it.
    ///
    /// The interposer is linked into `ratios` (it must be, to count allocations) and therefore replaces
    /// `malloc` and `free` for the whole process, adding a size header and a few nanoseconds to every
    /// call. Measured here that is ~4 ns per allocate-and-free pair, about a quarter of a small Swift
    /// object's cost: it would make an allocation-light hand-written translator look relatively
    /// slower and flatter every ratio against it. Preloading `libc.so.6` puts libc's `malloc` first
    /// in symbol resolution, so in the relaunched process allocations go straight to libc; allocation
    /// counts then come from a child process that runs without the preload.
    enum InterposerFreeRelaunch {
        /// Set in the relaunched process, so it never tries again (and a failed attempt cannot loop).
        static let relaunchedMarker = "DAOKIT_RATIOS_RELAUNCHED"
        /// The caller's own `LD_PRELOAD`, if any, kept for the allocation-counting child.
        static let originalPreloadVariable = "DAOKIT_RATIOS_ORIGINAL_LD_PRELOAD"

        /// Whether this process is the relaunched one.
        static var isRelaunched: Bool { getenv(relaunchedMarker) != nil }

        /// Replaces this process with a fresh run of the same executable and arguments, with
        /// `libc.so.6` preloaded. Returns only if that fails, leaving the process as it was.
        static func relaunch() {
            let original = getenv("LD_PRELOAD").map { String(cString: $0) }
            if let original {
                setenv(originalPreloadVariable, original, 1)
            }
            setenv("LD_PRELOAD", ["libc.so.6", original].compactMap { $0 }.joined(separator: ":"), 1)
            setenv(relaunchedMarker, "1", 1)
            execv("/proc/self/exe", CommandLine.unsafeArgv)
            // Still here: exec failed. Undo, so a child process inherits a clean environment.
            if let original { setenv("LD_PRELOAD", original, 1) } else { unsetenv("LD_PRELOAD") }
            unsetenv(originalPreloadVariable)
        }

        /// The environment a child process should get so that the interposer counts in it again: the
        /// caller's original `LD_PRELOAD` (or none) instead of the libc preload.
        static func environmentWithInterposerActive(_ environment: [String: String]) -> [String: String] {
            var environment = environment
            environment["LD_PRELOAD"] = environment[originalPreloadVariable]
            environment[originalPreloadVariable] = nil
            environment[relaunchedMarker] = nil
            return environment
        }
    }
#endif
