import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1, started by a test: canned responses by path, one
/// request per connection (`Connection: close`), and a record of what was asked.
final class LocalHTTPServer: @unchecked Sendable {
    struct Response: Sendable {
        var status: Int
        var body: String
        var contentType = "application/json"
    }

    /// A request as the server read it.
    struct Request: Sendable, Equatable {
        let method: String
        let path: String
        let body: String
    }

    let port: UInt16
    private let listener: Int32
    private let routes: [String: Response]
    private let lock = NSLock()
    private var received: [Request] = []
    private let done = DispatchSemaphore(value: 0)

    /// `http://127.0.0.1:PORT`.
    let baseURL: URL

    /// The requests served so far, in order.
    var requests: [Request] { lock.withLock { received } }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts listening on an ephemeral port of 127.0.0.1.
    init(routes: [String: Response]) throws {
        self.routes = routes
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw Failure(description: "bind/listen: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            close(fd)
            throw Failure(description: "no URL for port \(port)")
        }
        baseURL = url
        Thread.detachNewThread { [self] in serve() }
    }

    /// Stops listening and waits for the serving thread to end.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        done.wait()
    }

    private func serve() {
        defer { done.signal() }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
            if headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: bytes) {
                headerEnd = end + 4
                let head = String(decoding: bytes[0..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    contentLength = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let headerEnd, bytes.count >= headerEnd + contentLength { break }
        }
        guard let headerEnd else { return }
        let head = String(decoding: bytes[0..<headerEnd], as: UTF8.self)
        let requestLine = head.split(separator: "\r\n").first?.split(separator: " ") ?? []
        let method = requestLine.first.map(String.init) ?? ""
        let path = requestLine.count > 1 ? String(requestLine[1]) : ""
        let body = String(decoding: bytes[headerEnd...], as: UTF8.self)
        lock.withLock { received.append(Request(method: method, path: path, body: body)) }

        let response = routes[path] ?? Response(status: 404, body: #"{"error":"no route"}"#)
        let payload = Array(response.body.utf8)
        var text = "HTTP/1.1 \(response.status) \(response.status < 300 ? "OK" : "Error")\r\n"
        text += "Content-Type: \(response.contentType)\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        let out = Array(text.utf8) + payload
        var sent = 0
        while sent < out.count {
            let written = out[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            sent += written
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
