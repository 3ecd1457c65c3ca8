import Foundation

// The decoding probes of `FoundationCoderCorpus`: types whose decoded value records what their
// coders reported — coding paths, `userInfo`, `count`, `currentIndex`, `isAtEnd` after failed and
// retried reads — so that the mapper's answers can be compared with `JSONDecoder`'s.

/// Renders a coding path the same way for both coders: an element's index key (`Index 2`) as
/// `#2`, any other key by its string. (Keyed entries are compared by their strings: the mapper
/// stores keys as strings and cannot give back an `Int`-backed key's `intValue`.)
func renderPath(_ path: [any CodingKey]) -> String {
    "/"
        + path.map { key in
            if let index = key.intValue, key.stringValue == "Index \(index)" { return "#\(index)" }
            return key.stringValue
        }.joined(separator: "/")
}

/// Opens nested keyed and unkeyed containers at three levels on both sides, with `Int`-backed
/// keys, and records every `codingPath` it sees: those seen while encoding travel in the payload,
/// those seen while decoding are added by `init(from:)`.
struct CodingPathRecorder: Codable, Equatable, Sendable {
    var seenWhileEncoding: [String] = []
    var seenWhileDecoding: [String] = []

    enum TopKeys: Int, CodingKey { case keyed, unkeyed, leaf, paths }
    enum InnerKeys: Int, CodingKey { case one, two }

    init() {}

    func encode(to encoder: any Encoder) throws {
        var top = encoder.container(keyedBy: TopKeys.self)
        var paths = [renderPath(encoder.codingPath), renderPath(top.codingPath)]
        var second = top.nestedContainer(keyedBy: InnerKeys.self, forKey: .keyed)
        let thirdKeyed = second.nestedContainer(keyedBy: InnerKeys.self, forKey: .one)
        let thirdUnkeyed = second.nestedUnkeyedContainer(forKey: .two)
        paths += [second.codingPath, thirdKeyed.codingPath, thirdUnkeyed.codingPath].map(renderPath)
        var list = top.nestedUnkeyedContainer(forKey: .unkeyed)
        let elementKeyed = list.nestedContainer(keyedBy: InnerKeys.self)
        let elementUnkeyed = list.nestedUnkeyedContainer()
        paths += [list.codingPath, elementKeyed.codingPath, elementUnkeyed.codingPath].map(renderPath)
        paths.append("count \(list.count)")
        try top.encode(PathLeaf(), forKey: .leaf)
        try top.encode(paths, forKey: .paths)
    }

    init(from decoder: any Decoder) throws {
        let top = try decoder.container(keyedBy: TopKeys.self)
        var paths = [renderPath(decoder.codingPath), renderPath(top.codingPath)]
        let second = try top.nestedContainer(keyedBy: InnerKeys.self, forKey: .keyed)
        let thirdKeyed = try second.nestedContainer(keyedBy: InnerKeys.self, forKey: .one)
        let thirdUnkeyed = try second.nestedUnkeyedContainer(forKey: .two)
        paths += [second.codingPath, thirdKeyed.codingPath, thirdUnkeyed.codingPath].map(renderPath)
        var list = try top.nestedUnkeyedContainer(forKey: .unkeyed)
        let elementKeyed = try list.nestedContainer(keyedBy: InnerKeys.self)
        let elementUnkeyed = try list.nestedUnkeyedContainer()
        paths += [list.codingPath, elementKeyed.codingPath, elementUnkeyed.codingPath].map(renderPath)
        paths.append("count \(list.count ?? -1), at \(list.currentIndex), end \(list.isAtEnd)")
        let leaf = try top.decode(PathLeaf.self, forKey: .leaf)
        paths += [leaf.encodedAt, leaf.decodedAt]
        paths.append("keys \(top.allKeys.map(\.stringValue).sorted())")
        seenWhileEncoding = try top.decode([String].self, forKey: .paths)
        seenWhileDecoding = paths
    }
}

/// A single value that records the coding path (and `userInfo` size) its coders reported.
struct PathLeaf: Codable, Equatable, Sendable {
    var encodedAt = ""
    var decodedAt = ""

    init() {}

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(
            renderPath(encoder.codingPath) + " \(container.codingPath.count) info \(encoder.userInfo.count)")
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        encodedAt = try container.decode(String.self)
        decodedAt = renderPath(decoder.codingPath) + " \(container.codingPath.count) info \(decoder.userInfo.count)"
    }
}

/// Reads an unkeyed container of unknown kinds by retrying each element as another type after a
/// failed read, recording the container's state after every attempt.
struct RetryingReader: Decodable, Equatable, Sendable {
    var log: [String] = []

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            if let flag = try? container.decode(Bool.self) {
                log.append("Bool \(flag)")
            } else if let number = try? container.decode(Int.self) {
                log.append("Int \(number)")
            } else if let fraction = try? container.decode(Double.self) {
                log.append("Double \(fraction)")
            } else {
                log.append("String \(try container.decode(String.self))")
            }
            log.append("at \(container.currentIndex) of \(container.count ?? -1), end \(container.isAtEnd)")
        }
    }
}

/// Reads arrays of arrays by `count`, recording counts and indexes.
struct ElementCounter: Decodable, Equatable, Sendable {
    var log: [String] = []

    init(from decoder: any Decoder) throws {
        var outer = try decoder.unkeyedContainer()
        log.append("outer count \(outer.count ?? -1)")
        while !outer.isAtEnd {
            var inner = try outer.nestedUnkeyedContainer()
            log.append("inner count \(inner.count ?? -1) at \(outer.currentIndex)")
            while let element = try inner.decodeIfPresent(Int.self) { log.append("element \(element)") }
            log.append("inner ended at \(inner.currentIndex), end \(inner.isAtEnd)")
        }
        log.append("outer ended at \(outer.currentIndex)")
    }
}
