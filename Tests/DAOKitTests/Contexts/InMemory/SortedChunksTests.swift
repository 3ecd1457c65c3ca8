import Testing

@testable import DAOKit

/// The sorted-chunk list under in-memory indexes: order, splits, removal (an index moves an entry by
/// removing and inserting it), building from sorted elements, and walks in both directions.
@Suite("Sorted chunks")
struct SortedChunksTests {
    /// Replaces `old` with `new` as an index moves an entry: removed, then inserted; `false`,
    /// changing nothing, when `old` is not there.
    static func replace(_ list: inout SortedChunks<Int>, _ old: Int, with new: Int) -> Bool {
        guard list.remove(old) else { return false }
        list.insert(new)
        return true
    }

    /// Deterministic shuffle of 0..<n.
    func shuffled(_ n: Int, seed: UInt64) -> [Int] {
        var generator = SeededGenerator(seed: seed)
        return Array(0..<n).shuffled(using: &generator)
    }

    func elements(_ list: SortedChunks<Int>) -> [Int] {
        var out: [Int] = []
        list.forEach(from: list.startPosition, to: list.endPosition, reversed: false) {
            out.append($0)
            return true
        }
        return out
    }

    @Test func insertingInAnyOrderKeepsEveryElementSortedAcrossChunkSplits() {
        var list = SortedChunks<Int>()
        for value in shuffled(5_000, seed: 1) { list.insert(value) }
        #expect(list.count == 5_000)
        #expect(list.chunks.count > 1)
        #expect(elements(list) == Array(0..<5_000))
        #expect(list.chunks.allSatisfy { !$0.isEmpty && $0.count <= SortedChunks<Int>.maxChunk })
    }

    @Test func removingEveryOtherElementLeavesTheRestInOrderAndDropsEmptyChunks() {
        var list = SortedChunks<Int>()
        for value in shuffled(3_000, seed: 2) { list.insert(value) }
        for value in shuffled(3_000, seed: 3) where value % 2 == 0 {
            let removed = list.remove(value)
            #expect(removed)
        }
        #expect(elements(list) == Array(stride(from: 1, to: 3_000, by: 2)))
        for value in 0..<3_000 where value % 2 == 1 { list.remove(value) }
        #expect(list.isEmpty)
        #expect(list.chunks.isEmpty)
    }

    @Test func removingAnAbsentElementChangesNothing() {
        var list = SortedChunks<Int>()
        for value in [5, 1, 9] { list.insert(value) }
        let removedFour = list.remove(4)
        let removedTen = list.remove(10)
        #expect(!removedFour && !removedTen)
        #expect(elements(list) == [1, 5, 9])
    }

    @Test func aRangeWalkedBackwardsYieldsTheSameElementsReversed() {
        var list = SortedChunks<Int>()
        for value in shuffled(2_000, seed: 4) { list.insert(value) }
        let start = list.position { $0 < 700 }
        let end = list.position { $0 <= 1_400 }
        var forward: [Int] = []
        var backward: [Int] = []
        list.forEach(from: start, to: end, reversed: false) {
            forward.append($0)
            return true
        }
        list.forEach(from: start, to: end, reversed: true) {
            backward.append($0)
            return true
        }
        #expect(forward == Array(700...1_400))
        #expect(backward == Array((700...1_400).reversed()))
    }

    @Test func aWalkStopsWhenTheBodySaysSo() {
        var list = SortedChunks<Int>()
        for value in shuffled(1_500, seed: 5) { list.insert(value) }
        var seen: [Int] = []
        list.forEach(from: list.startPosition, to: list.endPosition, reversed: true) {
            seen.append($0)
            return seen.count < 3
        }
        #expect(seen == [1_499, 1_498, 1_497])
    }

    @Test func replacingAnElementWithOneOfTheSamePlaceOrAnotherKeepsTheListSorted() {
        var list = SortedChunks<Int>()
        for value in shuffled(1_000, seed: 6) { list.insert(value * 10) }
        // Another place: past its neighbours, into another chunk, to either end.
        for (old, new) in [(20, 7_005), (8_000, 15), (30, -5), (40, 20_000)] {
            let replaced = Self.replace(&list, old, with: new)
            #expect(replaced)
        }
        // The same place (between its neighbours), the last of every chunk included.
        for old in Set([-5, 0, 10, 15, 5_000, 7_005, 9_990, 20_000] + list.chunks.map { $0[$0.count - 1] }) {
            let replaced = Self.replace(&list, old, with: old + 1)
            #expect(replaced)
        }
        let all = elements(list)
        #expect(all.count == 1_000)
        #expect(all == all.sorted())
        #expect(all.first == -4 && all.last == 20_001)
        #expect(all.contains(7_006) && all.contains(16) && !all.contains(20) && !all.contains(8_000))
        #expect(list.chunks.allSatisfy { !$0.isEmpty && $0.count <= SortedChunks<Int>.maxChunk })
        // Searches still find every element where it now is.
        for value in all.prefix(50) {
            let removed = list.remove(value)
            #expect(removed)
        }
        #expect(elements(list) == Array(all.dropFirst(50)))
    }

    @Test func replacingTheLastOrOnlyElementOfAChunkWithOneThatMovesKeepsEverySearchRight() {
        // Chunks of 96 (a sorted build fills them three quarters): 0, 10, ... 9_590 in 100 chunks.
        var list = SortedChunks<Int>(count: 9_600) { $0 * 10 }
        let lastsBefore = list.chunks.map { $0[$0.count - 1] }
        // The last element of every other chunk moves past the end, into another chunk.
        for (step, last) in lastsBefore.enumerated() where step % 2 == 0 {
            let replaced = Self.replace(&list, last, with: 200_000 + last)
            #expect(replaced)
        }
        // A chunk of one element: its only element moves away, and the chunk goes.
        list.insert(-100)
        let chunksWithLoneElement = list.chunks.count
        for value in list.chunks[0] where value != -100 { list.remove(value) }
        #expect(list.chunks[0] == [-100])
        let replacedLone = Self.replace(&list, -100, with: 5_005)
        #expect(replacedLone)
        #expect(list.chunks.count < chunksWithLoneElement)
        let all = elements(list)
        #expect(all == all.sorted())
        #expect(all.count == list.count)
        #expect(list.chunks.allSatisfy { !$0.isEmpty && $0.count <= SortedChunks<Int>.maxChunk })
        #expect(list.lasts == list.chunks.map { $0[$0.count - 1] })
        // Every element is found where it now is, and nothing else is.
        for value in all {
            let removed = list.remove(value)
            #expect(removed)
        }
        #expect(list.isEmpty && list.chunks.isEmpty)
    }

    @Test func replacingAnAbsentElementChangesNothing() {
        var list = SortedChunks<Int>()
        for value in [5, 1, 9] { list.insert(value) }
        let replaced = Self.replace(&list, 4, with: 6)
        #expect(!replaced)
        #expect(elements(list) == [1, 5, 9])
    }

    @Test func anEmptyRangeYieldsNothingEitherWay() {
        var list = SortedChunks<Int>()
        for value in [1, 2, 3] { list.insert(value) }
        let position = list.position { $0 < 10 }
        var seen = 0
        list.forEach(from: position, to: position, reversed: false) { _ in
            seen += 1
            return true
        }
        list.forEach(from: position, to: position, reversed: true) { _ in
            seen += 1
            return true
        }
        #expect(seen == 0)
    }

    @Test func aListBuiltFromSortedElementsEqualsOneBuiltByInsertingThem() {
        var generator = SeededGenerator(seed: 12)
        let values = Array(0..<3_000).shuffled(using: &generator)
        var inserted = SortedChunks<Int>()
        for value in values { inserted.insert(value) }
        let sorted = values.sorted()
        var built = SortedChunks(count: sorted.count) { sorted[$0] }
        #expect(built.count == inserted.count)
        #expect(built.chunks.allSatisfy { !$0.isEmpty && $0.count <= SortedChunks<Int>.maxChunk })
        #expect(Array(built.chunks.joined()) == Array(inserted.chunks.joined()))
        // It stays a valid list: insertions and removals after the build keep the order.
        built.insert(-1)
        built.insert(3_000)
        let removed = built.remove(1_500)
        #expect(removed)
        #expect(Array(built.chunks.joined()) == [-1] + Array(0..<1_500) + Array(1_501...3_000))
    }

    @Test func aListBuiltFromElementsHandedOverOneByOneHoldsEachOnceInOrderAtEverySize() {
        // Around the three-quarter fill of a chunk (96) and its multiples.
        for count in [1, 95, 96, 97, 192, 193, 1_000] {
            var asked: [Int] = []
            let built = SortedChunks<Int>(count: count) { position in
                asked.append(position)
                return position * 2
            }
            #expect(asked == Array(0..<count), "each element is asked for once, in order (\(count))")
            #expect(built.count == count)
            #expect(Array(built.chunks.joined()) == Array(0..<count).map { $0 * 2 })
            #expect(built.chunks.dropLast().allSatisfy { $0.count == SortedChunks<Int>.maxChunk * 3 / 4 })
            #expect(built.lasts == built.chunks.map { $0[$0.count - 1] })
        }
    }

    @Test func aListBuiltFromNoElementsIsEmpty() {
        var built = SortedChunks<Int>(count: 0) { _ in
            Issue.record("asked for an element of none")
            return 0
        }
        #expect(built.isEmpty && built.chunks.isEmpty)
        built.insert(4)
        #expect(Array(built.chunks.joined()) == [4])
    }
}
