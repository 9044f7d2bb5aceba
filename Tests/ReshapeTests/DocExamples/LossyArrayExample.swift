import Foundation
import Reshape
import Testing

/// docs/swift.md, "Lenient arrays that are never silent".
@Suite struct LossyArrayExample {
    struct Repository: Decodable, Equatable {
        let name: String
        let description: String
    }

    // example: lossy-array
    struct Page: Decodable {
        @LossyArray var repositories: [Repository]
    }
    // end example: lossy-array

    @Test func run() throws {
        let data = Data(#"{"repositories": [{"name": "a", "description": "A"}, {"name": "b", "description": null}]}"#.utf8)
        // example: lossy-array
        let (page, dropped) = try ResponseDecoder().decodeWithDiagnostics(Page.self, from: data)
        let kept = page.repositories          // the repositories that decoded
        let drops = page.$repositories.drops  // the same drops, kept in the value itself
        let reasons = dropped.map(\.description)
        // ["dropped $['repositories'][1]: at $['repositories'][1]['description']: expected String, found null"]
        // end example: lossy-array
        #expect(kept == [Repository(name: "a", description: "A")])
        #expect(drops.map(\.description) == reasons)
        #expect(reasons == ["dropped $['repositories'][1]: at $['repositories'][1]['description']: expected String, found null"])
    }
}
