import DAOKitInternals

/// Why a file is not JSON, with the byte offset where reading stopped.
struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    /// The offset, from 0, of the byte that could not be read (the file's length when it ended).
    let offset: Int
    /// What was expected or found there.
    let reason: String
    /// Whether the data ended in the middle of a value, the mark of a truncated file.
    let isTruncation: Bool

    var description: String {
        isTruncation
            ? "truncated: the JSON ends at byte \(offset) in the middle of a value"
            : "not valid JSON: \(reason) at byte \(offset)"
    }
}

/// A strict RFC 8259 parser that keeps numbers as text.
///
/// Foundation's parsers either turn numbers into `Double`/`NSNumber` (losing digits) or decode
/// into known types; `verify` and `dump` need the document as written, and an error that says
/// where it went wrong. Nesting is limited to ``maximumDepth`` levels, the same bound
/// `JSONDecoder` applies, so that a hostile file cannot exhaust the stack.
struct JSONParser {
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var offset = 0

    /// Parses `bytes` as one JSON value, with only whitespace around it.
    static func parse<Bytes: Sequence>(_ bytes: Bytes) throws(JSONSyntaxError) -> JSONValue
    where Bytes.Element == UInt8 {
        var parser = JSONParser(bytes: Array(bytes))
        parser.skipWhitespace()
        let value = try parser.value(depth: 1)
        parser.skipWhitespace()
        guard parser.offset == parser.bytes.count else { throw parser.unexpected("after the end of the document") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard let byte = peek() else { throw truncated() }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw unexpected("where a value should start")
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw tooDeep() }
        offset += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard let byte = peek() else { throw truncated() }
            guard byte == UInt8(ascii: "\"") else { throw unexpected("where a member name should start") }
            let name = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "after a member name")
            skipWhitespace()
            members.append(JSONMember(name: name, value: try value(depth: depth + 1)))
            skipWhitespace()
            guard let next = peek() else { throw truncated() }
            offset += 1
            if next == UInt8(ascii: "}") { return .object(members) }
            guard next == UInt8(ascii: ",") else {
                offset -= 1
                throw unexpected("where ',' or '}' should be")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw tooDeep() }
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            guard let next = peek() else { throw truncated() }
            offset += 1
            if next == UInt8(ascii: "]") { return .array(elements) }
            guard next == UInt8(ascii: ",") else {
                offset -= 1
                throw unexpected("where ',' or ']' should be")
            }
        }
    }

    /// A string starting at the opening quote; escapes resolved, UTF-8 validated.
    private mutating func string() throws(JSONSyntaxError) -> String {
        let start = offset
        offset += 1
        var scalars: [UInt8] = []
        while true {
            guard let byte = peek() else { throw truncated() }
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = validatedString(scalars, as: UTF8.self) else {
                    throw JSONSyntaxError(
                        offset: start, reason: "a string that is not valid UTF-8", isTruncation: false)
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &scalars)
            case 0..<0x20:
                offset -= 1
                throw unexpected("(a control character) inside a string")
            default:
                scalars.append(byte)
            }
        }
    }

    private mutating func escape(into scalars: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = peek() else { throw truncated() }
        offset += 1
        let simple: [UInt8: UInt8] = [
            0x22: 0x22, 0x5C: 0x5C, 0x2F: 0x2F, 0x62: 0x08, 0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09,
        ]
        if let replacement = simple[byte] {
            scalars.append(replacement)
            return
        }
        guard byte == UInt8(ascii: "u") else {
            offset -= 1
            throw unexpected("after a backslash")
        }
        var code = UInt32(try hexQuad())
        if (0xD800..<0xDC00).contains(code) {
            // A high surrogate must be followed by an escaped low one; together they are one scalar.
            guard peek() == UInt8(ascii: "\\") else { throw unexpected("where a low surrogate should follow") }
            offset += 1
            guard peek() == UInt8(ascii: "u") else { throw unexpected("where a low surrogate should follow") }
            offset += 1
            let low = UInt32(try hexQuad())
            guard (0xDC00..<0xE000).contains(low) else { throw unexpected("where a low surrogate should be") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw unexpected("(a lone surrogate escape)") }
        scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw truncated() }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw unexpected("where a hex digit should be")
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, returned as written.
    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = offset
        if peek() == UInt8(ascii: "-") { offset += 1 }
        if peek() == UInt8(ascii: "0") {
            offset += 1
        } else {
            try digits()
        }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            try digits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            try digits()
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    private mutating func digits() throws(JSONSyntaxError) {
        guard let first = peek() else { throw truncated() }
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw unexpected("where a digit should be")
        }
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard let actual = peek() else { throw truncated() }
            guard actual == byte else { throw unexpected("in what looks like '\(word)'") }
            offset += 1
        }
    }

    private mutating func expect(_ byte: UInt8, _ context: String) throws(JSONSyntaxError) {
        guard let actual = peek() else { throw truncated() }
        guard actual == byte else {
            throw unexpected("where '\(Character(Unicode.Scalar(byte)))' should be \(context)")
        }
        offset += 1
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    private func peek() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private func truncated() -> JSONSyntaxError {
        JSONSyntaxError(offset: bytes.count, reason: "unexpected end of data", isTruncation: true)
    }

    private func tooDeep() -> JSONSyntaxError {
        JSONSyntaxError(
            offset: offset, reason: "values nested deeper than \(Self.maximumDepth) levels", isTruncation: false)
    }

    private func unexpected(_ context: String) -> JSONSyntaxError {
        let found: String
        if let byte = peek() {
            found =
                (0x21..<0x7F).contains(byte)
                ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
        } else {
            found = "the end of the data"
        }
        return JSONSyntaxError(offset: offset, reason: "unexpected \(found) \(context)", isTruncation: false)
    }
}
