import DAOKit
import Foundation

/// Predicates, sorting and paging through ``BaseDao``, and nested entities.
extension ContractChecks {
    static let queries: [ContractCheck] = [
        ContractCheck("predicatesSelectExactlyTheMatchingValues") { context in
            let dao = BaseDao<FixtureMessage, FixtureMessageEntity>(context: context)
            let messages = FixtureMessage.samples(12)
            try dao.persist(messages)
            let unread = #Predicate<FixtureMessage> { $0.isRead == false && $0.priority > 0 }
            let expected = try messages.filter(unread.evaluate)
            try Expect.that(!expected.isEmpty && expected.count < messages.count, "fixture selects some values")
            try Expect.equal(Set(try dao.read(where: unread).map(\.id)), Set(expected.map(\.id)), "read(where:)")
            try Expect.equal(try dao.count(where: unread), expected.count, "count(where:)")
            try Expect.equal(
                try dao.read(where: #Predicate { $0.author == "nobody" }), [], "a predicate matching nothing")
            try dao.erase(where: unread)
            try Expect.equal(
                Set(try dao.read().map(\.id)), Set(messages.map(\.id)).subtracting(expected.map(\.id)),
                "ids left after erase(where:)")
        },
        ContractCheck("sortDescriptorsApplyInOrder") { context in
            let dao = BaseDao<FixtureMessage, FixtureMessageEntity>(context: context)
            let messages = FixtureMessage.samples(12)
            // Save in a scrambled order so that the context's order cannot pass for a sort.
            try dao.persist(messages.enumerated().sorted { ($0.offset * 7) % 12 < ($1.offset * 7) % 12 }.map(\.element))
            let sorted = try dao.read(sortedBy: [
                SortDescriptor(\.author), SortDescriptor(\.priority, order: .reverse),
                SortDescriptor(\.date),
            ])
            let expected = messages.sorted { lhs, rhs in
                if lhs.author != rhs.author { return lhs.author < rhs.author }
                if lhs.priority != rhs.priority { return lhs.priority > rhs.priority }
                return lhs.date < rhs.date
            }
            try Expect.equal(sorted.map(\.text), expected.map(\.text), "author ↑, priority ↓, date ↑")
        },
        ContractCheck("pagingSkipsAndLimitsAfterFilteringAndSorting") { context in
            let dao = BaseDao<FixtureMessage, FixtureMessageEntity>(context: context)
            let messages = FixtureMessage.samples(10)
            try dao.persist(messages.reversed())
            let byDate = [SortDescriptor(\FixtureMessage.date)]
            let texts = messages.map(\.text)
            try Expect.equal(try dao.read(sortedBy: byDate, limit: 3).map(\.text), Array(texts[0..<3]), "first page")
            try Expect.equal(
                try dao.read(sortedBy: byDate, limit: 3, offset: 3).map(\.text), Array(texts[3..<6]),
                "second page")
            try Expect.equal(
                try dao.read(sortedBy: byDate, limit: 3, offset: 9).map(\.text), [texts[9]],
                "last, partial page")
            try Expect.equal(try dao.read(sortedBy: byDate, limit: 3, offset: 10), [], "page past the end")
            try Expect.equal(try dao.read(sortedBy: byDate, limit: 0), [], "limit 0")
            try Expect.equal(
                try dao.read(sortedBy: byDate, offset: 8).map(\.text), Array(texts[8...]),
                "offset without limit")
            let read = #Predicate<FixtureMessage> { $0.isRead }
            try Expect.equal(
                try dao.read(where: read, sortedBy: byDate, limit: 2, offset: 1).map(\.text),
                ["message 3", "message 6"], "page of a filtered query")
        },
        ContractCheck("aNegativeLimitOrOffsetThrowsInvalidQuery") { context in
            // A page from a request (`?offset=-1`) must reach the caller as an error, never trap.
            let dao = BaseDao<FixtureMessage, FixtureMessageEntity>(context: context)
            try dao.persist(FixtureMessage.samples(3))
            let read = #Predicate<FixtureMessage> { $0.isRead }
            let pages: [(limit: Int?, offset: Int)] = [(nil, -1), (-1, 0), (3, Int.min), (Int.min, 2)]
            for page in pages {
                for predicate in [nil, read] {
                    try Expect.failure(
                        "read(limit: \(String(describing: page.limit)), offset: \(page.offset))",
                        matching: { StorageError.Code.invalidQuery ~= $0 }
                    ) {
                        _ = try dao.read(
                            where: predicate, sortedBy: [SortDescriptor(\.date)], limit: page.limit, offset: page.offset
                        )
                    }
                }
                try Expect.failure(
                    "fetch(matching:) with limit \(String(describing: page.limit)), offset \(page.offset)",
                    matching: { StorageError.Code.invalidQuery ~= $0 }
                ) {
                    _ = try context.fetch(
                        FixtureMessageEntity.self, matching: StorageQuery(limit: page.limit, offset: page.offset))
                }
            }
            try Expect.equal(try dao.read(limit: Int.max, offset: Int.max), [], "the largest page is empty, not a trap")
            try Expect.equal(try dao.count(), 3, "nothing was changed")
        },
        ContractCheck("nestedEntitiesRoundTrip") { context in
            let dao = BaseDao<FixtureDialog, FixtureDialogEntity>(context: context)
            let dialogs = [
                FixtureDialog(id: "family", title: "Family", messages: FixtureMessage.samples(3, dialogID: "family")),
                FixtureDialog(id: "empty", title: "Nobody here", messages: []),
            ]
            try dao.persist(dialogs)
            try Expect.equal(try dao.read(id: "family"), dialogs[0], "dialog with 3 messages")
            try Expect.equal(try dao.read(id: "empty"), dialogs[1], "dialog without messages")
            var changed = dialogs[0]
            changed.messages[1].isRead.toggle()
            changed.messages.append(FixtureMessage(dialogID: "family", text: "new"))
            try dao.update(changed)
            try Expect.equal(try dao.read(id: "family"), changed, "dialog after changing a nested message")
        },
    ]
}
