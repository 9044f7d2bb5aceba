import Foundation
import Reshape
import Testing

/// docs/swift.md, "How a response is decoded".
@Suite struct StrategiesExample {
    // example: strategies
    struct Event: Decodable, Equatable {
        let id: String
        let eventName: String
        let startsAt: Date
    }
    // end example: strategies

    @Test func run() throws {
        let data = Data(#"{"e1": {"event_name": "Launch", "starts_at": "2026-12-01T09:00:00Z"}}"#.utf8)
        // example: strategies
        let template = JSONDecoder()
        template.keyDecodingStrategy = .convertFromSnakeCase
        template.dateDecodingStrategy = .iso8601
        let decoder = try ResponseDecoder(rules: [.keyedToArray], decoder: template)
        let events = try decoder.decode([Event].self, from: data)
        // {"e1": {"event_name": "Launch", "starts_at": "2026-12-01T09:00:00Z"}}
        //   → [Event(id: "e1", eventName: "Launch", startsAt: 2026-12-01 09:00:00 +0000)]
        // end example: strategies
        #expect(events == [Event(id: "e1", eventName: "Launch", startsAt: Date(timeIntervalSince1970: 1_796_115_600))])
    }
}
