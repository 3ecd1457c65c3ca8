import Foundation

/// A directory of its own under the system's temporary directory (`/tmp` unless `TMPDIR` says
/// otherwise), removed with everything in it when released or by ``remove()``.
///
/// Made with `mkdtemp`, so that two benchmark runs at once (this machine is shared) never write
/// into each other's stores.
final class TemporaryDirectory {
    let path: String
    private var isRemoved = false

    /// - Throws: ``RawIOError`` when the directory cannot be created.
    init(prefix: String) throws {
        var base = FileManager.default.temporaryDirectory.path
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/" + prefix + ".XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw RawIOError(operation: "mkdtemp", path: base, code: errno)
        }
        path = String(cString: made)
    }

    deinit {
        remove()
    }

    /// Removes the directory and everything in it; later calls do nothing. Best effort: a leftover
    /// temporary directory must not fail a benchmark run that has already measured.
    func remove() {
        guard !isRemoved else { return }
        isRemoved = true
        try? FileManager.default.removeItem(atPath: path)
    }
}
