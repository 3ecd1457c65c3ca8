/// A sorted multiset kept as a list of sorted chunks: insertion and removal cost a binary search
/// and a move within one chunk (at most ``maxChunk`` elements), not within the whole collection,
/// so an index of 100,000 entries updates as cheaply as one of 1,000.
///
/// Elements are ordered by their `Comparable` conformance, which must be a strict total order
/// (no two distinct elements equal), as index entries are (they end with the storage key).
///
/// Invariants: every chunk is non-empty and sorted, and every element of a chunk precedes every
/// element of the next one.
struct SortedChunks<Element: Comparable> {
    /// A chunk is split in two when it grows past this many elements. Small enough that moving
    /// the tail of a chunk is cheap, large enough that the chunk list stays short.
    static var maxChunk: Int { 512 }

    private(set) var chunks: [[Element]] = []
    private(set) var count = 0

    /// A place between elements: chunk and index within it. `(chunks.count, 0)` is the end.
    struct Position: Equatable {
        var chunk: Int
        var index: Int
    }

    var isEmpty: Bool { count == 0 }

    var startPosition: Position { Position(chunk: 0, index: 0) }
    var endPosition: Position { Position(chunk: chunks.count, index: 0) }

    /// Inserts `element`.
    mutating func insert(_ element: Element) {
        count += 1
        if chunks.isEmpty {
            chunks.append([element])
            return
        }
        // The first chunk whose last element is not below `element`, or the last chunk.
        let chunk = min(chunkIndex { $0 < element }, chunks.count - 1)
        let index = Self.lowerBound(in: chunks[chunk]) { $0 < element }
        chunks[chunk].insert(element, at: index)
        if chunks[chunk].count > Self.maxChunk {
            let upper = Array(chunks[chunk][(Self.maxChunk / 2)...])
            chunks[chunk].removeSubrange((Self.maxChunk / 2)...)
            chunks.insert(upper, at: chunk + 1)
        }
    }

    /// Removes `element`; `false` when it is not there.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        let chunk = chunkIndex { $0 < element }
        guard chunk < chunks.count else { return false }
        let index = Self.lowerBound(in: chunks[chunk]) { $0 < element }
        guard index < chunks[chunk].count, chunks[chunk][index] == element else { return false }
        chunks[chunk].remove(at: index)
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
        count -= 1
        return true
    }

    /// The first position whose element is not `isBelow`, where `isBelow` holds for a (possibly
    /// empty) prefix of the elements and for nothing after it.
    func position(where isBelow: (Element) -> Bool) -> Position {
        let chunk = chunkIndex(isBelow)
        guard chunk < chunks.count else { return endPosition }
        return Position(chunk: chunk, index: Self.lowerBound(in: chunks[chunk], isBelow))
    }

    /// Calls `body` on the elements from `start` up to (not including) `end`, front to back or,
    /// when `reversed`, back to front, until it returns `false`.
    ///
    /// Elements are lent to `body` straight from the chunks' storage, not copied: walking an index
    /// then costs no reference counting per element, which for entries whose records lie all over
    /// the heap is a cache miss saved per element.
    func forEach(from start: Position, to end: Position, reversed: Bool, _ body: (Element) -> Bool) {
        var chunk = reversed ? min(end.chunk, chunks.count - 1) : start.chunk
        while reversed ? chunk >= start.chunk : chunk <= min(end.chunk, chunks.count - 1) {
            let first = chunk == start.chunk ? start.index : 0
            let stop = chunk == end.chunk ? end.index : chunks[chunk].count
            // An empty range whose start lies after its end (bounds that exclude each other).
            if first >= stop {
                chunk += reversed ? -1 : 1
                continue
            }
            let finished = chunks[chunk].withUnsafeBufferPointer { elements in
                if reversed {
                    for index in stride(from: stop - 1, through: first, by: -1) where !body(elements[index]) { return true }
                } else {
                    for index in first..<stop where !body(elements[index]) { return true }
                }
                return false
            }
            if finished { return }
            chunk += reversed ? -1 : 1
        }
    }

    /// The first chunk whose last element is not `isBelow` (`chunks.count` when there is none).
    private func chunkIndex(_ isBelow: (Element) -> Bool) -> Int {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if isBelow(chunks[middle][chunks[middle].count - 1]) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func lowerBound(in chunk: [Element], _ isBelow: (Element) -> Bool) -> Int {
        var low = 0, high = chunk.count
        while low < high {
            let middle = (low + high) / 2
            if isBelow(chunk[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
