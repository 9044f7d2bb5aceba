// The `Reshape` module: typed decoding of quirky API responses on top of the `ReshapeCore` engine.
//
// `import Reshape` brings in everything of `ReshapeCore` too (`Rules`, `ReshapeError`,
// `JSONValue`...), so API clients need one import. See docs/swift.md for a guide per pattern.
@_exported import ReshapeCore
