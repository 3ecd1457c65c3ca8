import DAOKitInternals
import Foundation
import Testing

/// `Thread.start(named:)`: the name reaches the system, where debuggers and crash reports read it.
@Suite("Named threads")
struct ThreadNameTests {
    @Test("every thread started with a name carries it, however many start at once")
    func everyThreadStartedWithANameCarriesIt() async {
        let seen = Locked<[Int: String]>([:])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let remaining = Locked(8)
            for index in 0..<8 {
                Thread.start(named: "DAOKit test \(index)") {
                    seen.withLock { $0[index] = Thread.currentSystemName }
                    if remaining.withLock({
                        $0 -= 1
                        return $0 == 0
                    }) {
                        done.resume()
                    }
                }
            }
        }
        #expect(seen.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, "DAOKit test \($0)") }))
    }

    @Test("a thread started without DAOKit's helper does not carry a name it was not given")
    func aThreadStartedOtherwiseDoesNotCarryTheName() async {
        let name = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            Thread { done.resume(returning: Thread.currentSystemName) }.start()
        }
        #expect(!name.hasPrefix("DAOKit test"))
    }
}
