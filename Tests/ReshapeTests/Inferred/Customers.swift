// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.
// Read them before relying on them: samples show what an API sent, not all it can send.
import Reshape

enum InferredCustomers {
    struct Customers: PayloadTransformable, Encodable {
        /// The rules that reshape a response into this type, proposed by `reshape infer`.
        static let rules: [Rule] = [
            .document(
                #"""
                [
                  {
                    "op": "convertKeys",
                    "to": "camelCase",
                    "exclude": [
                      "$.data[*].metadata"
                    ]
                  }
                ]
                """#
            )
        ]

        let object: String
        let url: String
        let hasMore: Bool
        let data: [Datum]
    }

    struct Datum: Codable, Sendable {
        let id: String
        let object: String
        let address: JSONValue?
        let balance: Int
        let created: Int
        let currency: JSONValue?
        let defaultSource: JSONValue?
        let delinquent: Bool
        let description: JSONValue?
        let email: String
        let invoicePrefix: String
        let invoiceSettings: InvoiceSettings
        let livemode: Bool
        let metadata: [String: String]
        let name: String
        let phone: JSONValue?
        let preferredLocales: [JSONValue]
        let shipping: JSONValue?
        let taxExempt: String
        let testClock: JSONValue?
    }

    struct InvoiceSettings: Codable, Sendable {
        let customFields: JSONValue?
        let defaultPaymentMethod: JSONValue?
        let footer: JSONValue?
        let renderingOptions: JSONValue?
    }
}
