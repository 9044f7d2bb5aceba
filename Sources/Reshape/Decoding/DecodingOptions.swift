#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

/// The `JSONDecoder` settings an ``IndexDecoder`` decodes with, read once from the template.
struct DecodingOptions {
    let dates: JSONDecoder.DateDecodingStrategy
    let data: JSONDecoder.DataDecodingStrategy
    let floats: JSONDecoder.NonConformingFloatDecodingStrategy
    let keys: JSONDecoder.KeyDecodingStrategy
    /// Whether `keys` is `.useDefaultKeys`: member names are the keys, compared byte for byte.
    let defaultKeys: Bool
    /// The decoder the settings came from, for the values only it knows how to read (a date
    /// strategy this code does not know, such as `.formatted` where it exists).
    let template: JSONDecoder

    init(_ decoder: JSONDecoder) {
        dates = decoder.dateDecodingStrategy
        data = decoder.dataDecodingStrategy
        floats = decoder.nonConformingFloatDecodingStrategy
        keys = decoder.keyDecodingStrategy
        if case .useDefaultKeys = decoder.keyDecodingStrategy { defaultKeys = true } else { defaultKeys = false }
        template = decoder
    }
}

/// The key a `JSONDecoder` with a key strategy reports for a member name, found by asking one, so
/// that the conversion is Foundation's own to the letter (`.convertFromSnakeCase` capitalizes with
/// Unicode rules). Only for strategies that do not look at the coding path.
enum KeyConversion {
    /// The key `strategy` makes of `name`, or nil when the probe cannot say.
    static func key(for name: String, _ strategy: JSONDecoder.KeyDecodingStrategy) -> String? {
        let probe: JSONValue = .object([name: .null])
        guard let json = try? probe.json() else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = strategy
        return (try? decoder.decode(KeyProbe.self, from: Data(json)))?.key
    }
}

/// Decodes `{"name": ...}` only to learn the key the decoder reports for `name`.
private struct KeyProbe: Decodable {
    let key: String?

    init(from decoder: any Decoder) throws {
        key = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.first?.stringValue
    }
}
