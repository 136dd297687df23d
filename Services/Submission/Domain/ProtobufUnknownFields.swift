import Foundation

/// Reads the field numbers of raw protobuf fields, as swift-protobuf keeps them in `unknownFields`.
///
/// Needed for one rule: in proto2 an enum value the schema does not know (say submission type 42) is not an
/// error; the parser moves it to the unknown fields and the field reads as its default (PCR test). Looking for
/// the field number there tells "absent" from "present with an unknown value".
public enum ProtobufUnknownFields {
    /// The numbers of the top-level fields in `data`, in order; nil when the bytes are not well-formed protobuf.
    /// The fields inside a group (wire types 3 and 4, which proto2 still parses) belong to the group, not to the
    /// message, and are skipped with it: a reader that stopped at a group would not see the fields after it.
    public static func fieldNumbers(in data: Data) -> [Int]? {
        let bytes = [UInt8](data)
        var index = 0
        var numbers: [Int] = []
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count, shift < 64 {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        // The groups open at this point, innermost last, by field number.
        var openGroups: [UInt64] = []
        while index < bytes.count {
            guard let tag = varint() else { return nil }
            let field = tag >> 3
            guard field > 0 else { return nil }
            switch tag & 7 {
            case 0: guard varint() != nil else { return nil }
            case 1: index += 8
            case 2:
                guard let length = varint(), length <= UInt64(bytes.count - index) else { return nil }
                index += Int(length)
            case 3:
                if openGroups.isEmpty { numbers.append(Int(field)) }
                openGroups.append(field)
                continue
            case 4:
                guard openGroups.last == field else { return nil }
                openGroups.removeLast()
                continue
            case 5: index += 4
            default: return nil
            }
            guard index <= bytes.count else { return nil }
            if openGroups.isEmpty { numbers.append(Int(field)) }
        }
        return openGroups.isEmpty ? numbers : nil
    }
}
