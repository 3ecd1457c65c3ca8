/// Strict mode's check: finds the first entry of a decoded tree that the target never read.
enum UnreadKeys {
    /// The coding path of the shallowest unread entry (the first in encode order among equally
    /// shallow ones), or `nil` when everything was read.
    ///
    /// Nulls are skipped (they carry nothing that could be lost), and the children of an unread
    /// entry are not visited: the entry itself is the finding. The walk is breadth-first over a
    /// queue rather than recursive, so a tree nested thousands of levels deep cannot overflow the
    /// thread's stack.
    static func first(in root: ContainerNode) -> [any CodingKey]? {
        var pending: [ContainerNode] = [root]
        var next = 0
        while next < pending.count {
            let node = pending[next]
            next += 1
            for index in node.values.indices {
                if node.values[index].isNull { continue }
                guard node.wasRead(index) else { return node.codingPath(appending: index) }
                switch node.values[index] {
                case .keyed(let child), .unkeyed(let child):
                    pending.append(child)
                default:
                    break
                }
            }
        }
        return nil
    }
}
