/// A sorted multiset kept as a list of sorted chunks: insertion and removal cost a binary search
/// and a move within one chunk (at most ``maxChunk`` elements), not within the whole collection,
/// so an index of 100,000 entries updates as cheaply as one of 1,000.
///
/// Elements are ordered by their `Comparable` conformance, which must be a strict total order
/// (no two distinct elements equal), as index entries are (they end with the storage key).
///
/// Searches lend elements to the comparison straight from the storage (no copy, so no retain of
/// what an element references), and find the chunk through ``lasts``, one contiguous array, rather
/// than through each chunk's own storage: in a large index each chunk visited would be a cache miss.
///
/// Invariants: every chunk is non-empty and sorted, every element of a chunk precedes every
/// element of the next one, and `lasts[i]` is the last element of `chunks[i]`.
struct SortedChunks<Element: InPlaceComparable> {
    /// A chunk is split in two when it grows past this many elements. Small enough that moving
    /// the tail of a chunk is cheap (an index entry is 48 bytes), large enough that the chunk list
    /// stays short.
    static var maxChunk: Int { 128 }

    private(set) var chunks: [[Element]] = []
    /// The last element of each chunk.
    private(set) var lasts: [Element] = []
    private(set) var count = 0

    /// A place between elements: chunk and index within it. `(chunks.count, 0)` is the end.
    struct Position: Equatable, Comparable {
        var chunk: Int
        var index: Int

        static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.chunk, lhs.index) < (rhs.chunk, rhs.index)
        }
    }

    /// How many elements lie from `start` up to (not including) `end`: a sum over the chunks
    /// between them, no element read.
    func count(from start: Position, to end: Position) -> Int {
        guard start < end else { return 0 }
        if start.chunk == end.chunk { return end.index - start.index }
        var total = chunks[start.chunk].count - start.index
        for chunk in (start.chunk + 1)..<min(end.chunk, chunks.count) { total += chunks[chunk].count }
        return total + (end.chunk < chunks.count ? end.index : 0)
    }

    var isEmpty: Bool { count == 0 }

    var startPosition: Position { Position(chunk: 0, index: 0) }
    var endPosition: Position { Position(chunk: chunks.count, index: 0) }

    init() {}

    /// A list of `count` elements, `element(i)` for `i` from 0 up, which must come sorted and
    /// distinct: what inserting them one by one builds, without searching for each one's place,
    /// and with every chunk three quarters full, so that the insertions that follow split few of
    /// them. Each element goes into its chunk as `element` returns it, and no array of them is
    /// needed, so a caller that moves them out of storage of its own (an index built from its
    /// sorted entries) hands them over without copying them — for index entries, without a retain
    /// and a release of each one's values, which lie all over the heap.
    init(count: Int, sortedElementAt element: (Int) -> Element) {
        let fill = Self.maxChunk * 3 / 4
        chunks.reserveCapacity((count + fill - 1) / fill)
        for start in stride(from: 0, to: count, by: fill) {
            let size = Swift.min(fill, count - start)
            chunks.append(
                [Element](unsafeUninitializedCapacity: size) { buffer, initialized in
                    for offset in 0..<size { (buffer.baseAddress! + offset).initialize(to: element(start + offset)) }
                    initialized = size
                })
        }
        lasts = chunks.map { $0[$0.count - 1] }
        self.count = count
    }

    /// Inserts `element`.
    mutating func insert(_ element: consuming Element) {
        count += 1
        if chunks.isEmpty {
            lasts.append(copy element)
            chunks.append([element])
            return
        }
        // The first chunk whose last element is not below `element`, or the last chunk.
        let (chunk, index) = withUnsafePointer(to: element) { element in
            let target = ElementTarget(element: element)
            return search(for: target) { lasts, chunkCount in
                min(Self.lowerBound(of: target, in: lasts), chunkCount - 1)
            }
        }
        if index == chunks[chunk].count { lasts[chunk] = copy element }  // it goes last
        chunks[chunk].insert(element, at: index)
        if chunks[chunk].count > Self.maxChunk {
            let upper = Array(chunks[chunk][(Self.maxChunk / 2)...])
            chunks[chunk].removeSubrange((Self.maxChunk / 2)...)
            lasts[chunk] = chunks[chunk][chunks[chunk].count - 1]
            chunks.insert(upper, at: chunk + 1)
            lasts.insert(upper[upper.count - 1], at: chunk + 1)
        }
    }

    /// Removes `element`; `false` when it is not there.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        withUnsafePointer(to: element) { remove(ElementTarget(element: $0)) } != nil
    }

    /// Removes the element `target` stands for and returns it; `nil`, changing nothing, when it
    /// is not there.
    @discardableResult
    mutating func remove(_ target: some SortedChunksTarget<Element>) -> Element? {
        guard let (chunk, index) = place(of: target) else { return nil }
        return remove(at: chunk, index)
    }

    /// Removes the element at `index` of chunk `chunk`, which must be there, and returns it.
    private mutating func remove(at chunk: Int, _ index: Int) -> Element {
        let element = chunks[chunk].remove(at: index)
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            lasts.remove(at: chunk)
        } else if index == chunks[chunk].count {
            lasts[chunk] = chunks[chunk][index - 1]
        }
        count -= 1
        return element
    }

    /// Where the element `target` stands for is, or `nil` when it is not there.
    private func place(of target: some SortedChunksTarget<Element>) -> (chunk: Int, index: Int)? {
        let (chunk, index) = search(for: target) { lasts, _ in Self.lowerBound(of: target, in: lasts) }
        guard chunk < chunks.count else { return nil }
        let found = chunks.withUnsafeBufferPointer { chunks in
            chunks[chunk].withUnsafeBufferPointer { index < $0.count && target.isTarget($0.baseAddress! + index) }
        }
        return found ? (chunk, index) : nil
    }

    /// The chunk `chooseChunk` picks from ``lasts`` (and the number of chunks), and the first
    /// index in it whose element does not come before `target` (0 for a chunk past the end).
    ///
    /// The arrays are read through buffers taken once: reading a chunk through `chunks[chunk]`
    /// would retain and release its storage around the search, two atomic operations on a cache
    /// line the search itself may not need.
    private func search(
        for target: some SortedChunksTarget<Element>,
        chunk chooseChunk: (UnsafeBufferPointer<Element>, Int) -> Int
    ) -> (chunk: Int, index: Int) {
        lasts.withUnsafeBufferPointer { lasts in
            chunks.withUnsafeBufferPointer { chunks in
                let chunk = chooseChunk(lasts, chunks.count)
                guard chunk < chunks.count else { return (chunk, 0) }
                return (chunk, chunks[chunk].withUnsafeBufferPointer { Self.lowerBound(of: target, in: $0) })
            }
        }
    }

    /// The first position whose element is not `isBelow`, where `isBelow` holds for a (possibly
    /// empty) prefix of the elements and for nothing after it.
    func position(where isBelow: (Element) -> Bool) -> Position {
        let chunk = lasts.withUnsafeBufferPointer { Self.lowerBound(in: $0, isBelow) }
        guard chunk < chunks.count else { return endPosition }
        return Position(chunk: chunk, index: chunks[chunk].withUnsafeBufferPointer { Self.lowerBound(in: $0, isBelow) })
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
                    for index in stride(from: stop - 1, through: first, by: -1) where !body(elements[index]) {
                        return true
                    }
                } else {
                    for index in first..<stop where !body(elements[index]) { return true }
                }
                return false
            }
            if finished { return }
            chunk += reversed ? -1 : 1
        }
    }

    /// The first index of `elements` whose element is not `isBelow`. Elements are lent from the
    /// storage, and the array is not copied, so the chunk stays uniquely referenced for the
    /// insertion that may follow (a copy would make it copy all its elements).
    private static func lowerBound(in elements: UnsafeBufferPointer<Element>, _ isBelow: (Element) -> Bool) -> Int {
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            if isBelow(elements[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first index of `elements` whose element does not come before `target`: ``lowerBound(in:_:)``
    /// comparing in place (``InPlaceComparable``), without a closure between the search and the
    /// comparison (the target's type is known where this is specialized).
    private static func lowerBound(
        of target: some SortedChunksTarget<Element>, in elements: UnsafeBufferPointer<Element>
    ) -> Int {
        guard let base = elements.baseAddress else { return 0 }
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            if target.comesAfter(base + middle) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// An element as its own search target.
    private struct ElementTarget: SortedChunksTarget {
        let element: UnsafePointer<Element>

        func comesAfter(_ other: UnsafePointer<Element>) -> Bool { Element.isBelow(other, element) }
        func isTarget(_ other: UnsafePointer<Element>) -> Bool { !Element.isBelow(element, other) }
    }
}

/// What a search of ``SortedChunks`` looks for: one element, described without being one (an
/// index entry found by its record and values, with no array of the values made for the search).
protocol SortedChunksTarget<Element> {
    associatedtype Element
    /// Whether the element at `element` comes before the one looked for.
    func comesAfter(_ element: UnsafePointer<Element>) -> Bool
    /// Whether the element at `element`, the first that does not come before it, is the one looked for.
    func isTarget(_ element: UnsafePointer<Element>) -> Bool
}

/// An element ``SortedChunks`` can order where it lies: a binary search then reads only what each
/// comparison needs, where `<` would copy each element it visits out of storage first, retaining
/// every reference it holds (and touching the memory each points to).
protocol InPlaceComparable: Comparable {
    /// Whether the element at `lhs` comes before the one at `rhs`: the same as `lhs.pointee <
    /// rhs.pointee`.
    static func isBelow(_ lhs: UnsafePointer<Self>, _ rhs: UnsafePointer<Self>) -> Bool
}

extension InPlaceComparable {
    static func isBelow(_ lhs: UnsafePointer<Self>, _ rhs: UnsafePointer<Self>) -> Bool {
        lhs.pointee < rhs.pointee
    }
}

extension Int: InPlaceComparable {}
