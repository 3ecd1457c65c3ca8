/// Records of a recorded shape, as the JSON contexts store them (the key-value context's format,
/// which the PostgreSQL context's `JSONRecord` shares: Foundation's default strategies, so a date
/// is a number of seconds, data is Base64 text, a URL its absolute string).
///
/// One record per case of the shape's largest enum, the n-th picking each enum's n-th case (so
/// every recorded case is read), with every optional value present; and one with every optional
/// value missing. Arrays and dictionaries hold one element.
enum RecordSynthesis {
    static func records(of fields: [EntityShape.Field]) -> [String] {
        let variants = max(1, largestEnum(in: fields))
        var records = (0..<variants).map { object(fields, variant: $0, optionalsPresent: true) }
        records.append(object(fields, variant: 0, optionalsPresent: false))
        return records
    }

    private static func largestEnum(in fields: [EntityShape.Field]) -> Int {
        fields.map { largestEnum(in: $0.value) }.max() ?? 0
    }

    private static func largestEnum(in value: EntityShape.Value) -> Int {
        switch value.kind {
        case .keyed(let fields): largestEnum(in: fields)
        case .array(let element), .dictionary(_, let element): largestEnum(in: element)
        case .enumeration(let rawValues, _): rawValues.count
        default: 0
        }
    }

    private static func object(_ fields: [EntityShape.Field], variant: Int, optionalsPresent: Bool) -> String {
        let members = fields.compactMap { field -> String? in
            guard let value = json(field.value, variant: variant, optionalsPresent: optionalsPresent) else {
                return nil
            }
            return "\(string(field.name)):\(value)"
        }
        return "{\(members.joined(separator: ","))}"
    }

    /// The JSON of a value; nil for an optional value left out.
    private static func json(_ value: EntityShape.Value, variant: Int, optionalsPresent: Bool) -> String? {
        if value.isOptional && !optionalsPresent { return nil }
        switch value.kind {
        case .string: return string("a")
        case .integer: return "1"
        case .floating: return "0.5"
        case .bool: return "true"
        case .date: return "1"
        case .data: return string("AA==")
        case .url: return string("https://example.com/a")
        case .decimal: return "1.5"
        case .uuid: return string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        case .keyed(let fields): return object(fields, variant: variant, optionalsPresent: optionalsPresent)
        case .array(let element):
            if case .recursive = element.kind { return "[]" }
            return "[\(json(element, variant: variant, optionalsPresent: optionalsPresent) ?? "null")]"
        case .dictionary(_, let element):
            if case .recursive = element.kind { return "{}" }
            // "1" is a valid key of a dictionary keyed by strings and of one keyed by integers.
            return "{\"1\":\(json(element, variant: variant, optionalsPresent: optionalsPresent) ?? "null")}"
        case .enumeration(let rawValues, let integers):
            let raw = rawValues[variant % rawValues.count]
            return integers ? raw : string(raw)
        case .recursive:
            // Only an optional value or a collection (above) holds its own type.
            return "null"
        }
    }

    private static func string(_ text: String) -> String {
        var json = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case _ where scalar.value < 0x20: json += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: json.unicodeScalars.append(scalar)
            }
        }
        return json + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
