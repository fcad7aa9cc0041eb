// A music library's side of MenuBus in Swift, filling a deferred element
// asynchronously while it goes on answering menubusd.
//
// The "albums" context's menu has a deferred "Recent Albums" element that
// takes 200 ms to fill (an async handler: Swift concurrency, one Task per
// request), and a "Shuffle" item. The "search" context's deferred
// suggestions are filled at once. The client runs on the program's own
// loop: poll(2) on `fileDescriptors`, then `dispatch()`, as a GLib or
// CFRunLoop app would attach it. While Recent Albums is loading, menubusd
// keeps presenting, other deferred elements are filled and choices arrive.
//
//   swift run menubus-async-example [--delay-ms N]

#if canImport(Glibc)
import Glibc
#endif
import MenuBus

let delayMilliseconds: UInt64 = {
    var delay: UInt64 = 200
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        guard argument == "--delay-ms", let value = arguments.popFirst().flatMap({ UInt64($0) }) else {
            print("usage: menubus-async-example [--delay-ms N]")
            exit(2)
        }
        delay = value
    }
    return delay
}()

/// Lines go out whole and at once, from the loop and from tasks alike.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// What the library would load from disk or the network.
func recentAlbums() async throws -> [String] {
    try await Task.sleep(nanoseconds: delayMilliseconds * 1_000_000)
    return ["Blue Train", "Kind of Blue"]
}

do {
    let app = try MenuBusClient()
    app.provideElementsAsync { contextId, elementId in
        switch elementId {
        case "recent":
            say("asked for \(contextId)/recent")
            let albums = try await recentAlbums()
            say("filled \(contextId)/recent with \(albums.count) albums after \(delayMilliseconds) ms")
            return albums.enumerated().map { MenuElement(id: "album-\($0.offset)", kind: .action, title: $0.element) }
        case "suggestions":
            say("filled \(contextId)/suggestions")
            return [MenuElement(id: "suggest-jazz", kind: .action, title: "Jazz")]
        default:
            throw BusError(.noSuchItem, "no deferred element '\(elementId)'")
        }
    }
    app.onAction = { action in say("chose \(action.itemId) in \(action.contextId)") }
    try app.register(appId: "org.example.AsyncLibrary")
    try app.publishContext("albums", ContextInfo(kind: .item, title: "Albums"), items: [
        // Shuffling again is likely: the menu stays presented.
        MenuElement(id: "shuffle", kind: .action, title: "Shuffle", attributes: [.keepsMenuPresented]),
        MenuElement(id: "recent", kind: .deferred, cached: false),
    ])
    try app.publishContext("search", ContextInfo(kind: .item, title: "Search"), items: [
        MenuElement(id: "suggestions", kind: .deferred, cached: false),
    ])
    say("org.example.AsyncLibrary is serving; Ctrl-C stops")

    // The program's own loop: wait for the bus socket or an answer from a
    // task (the client's wake-up descriptor), or for the client's next timer.
    while app.isConnected {
        var fds = app.fileDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let next = app.dispatch()
        let timeout = next.map { Int32(min(max($0 * 1000, 0), 1000)) } ?? 1000
        _ = poll(&fds, nfds_t(fds.count), timeout)
        app.dispatch()
    }
} catch {
    print("menubus-async-example: \(error)")
    exit(1)
}
