import Testing

@testable import DAOKitPostgres

/// The connect timeouts on one timer: an armed deadline expires once, a disarmed one never, and
/// one earlier than every pending deadline is not held back by them. Each test waits for a
/// deadline it knows must expire after the one it checks, rather than for a fixed time.
@Suite("Postgres lease deadlines", .timeLimit(.minutes(1)))
struct LeaseDeadlinesTests {
    @Test func anArmedDeadlineExpiresOnce() async {
        let deadlines = LeaseDeadlines()
        let expiries = Locked(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = deadlines.arm(after: .milliseconds(20)) { expiries.withLock { $0 += 1 } }
            _ = deadlines.arm(after: .milliseconds(300)) { done.resume() }
        }
        #expect(expiries.withLock { $0 } == 1)
    }

    @Test func aDisarmedDeadlineNeverExpires() async {
        let deadlines = LeaseDeadlines()
        let expired = Locked(false)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            deadlines.disarm(deadlines.arm(after: .seconds(1)) { expired.withLock { $0 = true } })
            _ = deadlines.arm(after: .milliseconds(1_500)) { done.resume() }
        }
        #expect(expired.withLock { $0 } == false)
    }

    @Test func aDeadlineEarlierThanThePendingOnesExpiresFirst() async {
        let deadlines = LeaseDeadlines()
        let lateExpired = Locked(false)
        let late = deadlines.arm(after: .seconds(3_600)) { lateExpired.withLock { $0 = true } }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = deadlines.arm(after: .milliseconds(20)) { done.resume() }
        }
        #expect(lateExpired.withLock { $0 } == false)
        deadlines.disarm(late)
    }

    @Test func deadlinesArmedAndDisarmedFromManyTasksExpireExactlyWhenKept() async {
        let deadlines = LeaseDeadlines()
        let expiries = Locked<[Int: Int]>([:])
        await withTaskGroup(of: Void.self) { group in
            for call in 0..<200 {
                group.addTask {
                    // Odd calls are disarmed at once, long before their deadline.
                    let handle = deadlines.arm(after: .milliseconds(call.isMultiple(of: 2) ? 50 : 1_000)) {
                        expiries.withLock { $0[call, default: 0] += 1 }
                    }
                    if !call.isMultiple(of: 2) { deadlines.disarm(handle) }
                }
            }
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = deadlines.arm(after: .milliseconds(1_500)) { done.resume() }
        }
        let counted = expiries.withLock { $0 }
        #expect(counted.keys.sorted() == Array(stride(from: 0, to: 200, by: 2)))
        #expect(counted.values.allSatisfy { $0 == 1 })
    }
}
