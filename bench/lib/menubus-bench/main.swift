#if canImport(Glibc)
import Glibc
#endif
import MenuBus
import MenuBusModel
import MenuBusBenchmarks

// Benchmarks of the menu service, run by bench/roundtrips/menus.sh against a private bus
// and a release menubusd. Prints medians and ratios against Ping measured in
// the same run; it asserts nothing.

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct Samples {
    var nanoseconds: [UInt64] = []

    mutating func time(_ body: () throws -> Void) rethrows {
        let start = now()
        try body()
        nanoseconds.append(now() - start)
    }

    func percentile(_ p: Double) -> Double {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
    }

    var p50: Double { percentile(0.5) }
    var p99: Double { percentile(0.99) }
}

func format(_ value: Double) -> String {
    let scaled = (value * 10).rounded() / 10
    return "\(scaled)"
}

func row(_ name: String, _ samples: Samples) {
    print("| \(name) | \(format(samples.p50)) | \(format(samples.p99)) | \(samples.nanoseconds.count) |")
}

/// 50 items: nine sections of five actions and a submenu of five.
func fiftyItemMenu() -> [MenuElement] {
    var items: [MenuElement] = []
    for section in 0..<9 {
        let id = "section\(section)"
        items.append(MenuElement(id: id, kind: .menu, options: [.inline]))
        for item in 0..<5 {
            items.append(MenuElement(id: "s\(section)-item\(item)", parent: id, title: "Action Number \(section * 5 + item)",
                                     icon: "document-open"))
        }
    }
    items.append(MenuElement(id: "more", kind: .menu, title: "More Actions"))
    for item in 0..<5 {
        items.append(MenuElement(id: "more-item\(item)", parent: "more", title: "Extra Action \(item)"))
    }
    return items
}

let arguments = CommandLine.arguments.dropFirst()
var address: String?
var iterations = 5000
var mode = "all"
var argumentList = Array(arguments)
while !argumentList.isEmpty {
    let argument = argumentList.removeFirst()
    switch argument {
    case "--address": address = argumentList.isEmpty ? nil : argumentList.removeFirst()
    case "--iterations": iterations = Int(argumentList.isEmpty ? "" : argumentList.removeFirst()) ?? iterations
    case "--mode": mode = argumentList.isEmpty ? mode : argumentList.removeFirst()
    default:
        print("usage: menubus-bench [--address ADDRESS] [--iterations N] [--mode all|calls|compose|memory|deferred|isolation|undo|preview|providers]")
        exit(2)
    }
}

let text = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
let selection = Selection(kind: .range, length: 12, pasteboardTypes: ["text/plain"])

if mode == "all" || mode == "compose" {
    // Composition alone, in process: no bus.
    let items = fiftyItemMenu()
    let rich = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true, richText: true)
    var context = Samples(), edit = Samples()
    var sink = 0
    for _ in 0..<200 { sink &+= MenuComposer.contextMenu(context: rich, items: items, selection: selection).count }
    for _ in 0..<iterations {
        context.time { sink &+= MenuComposer.contextMenu(context: rich, items: items, selection: selection).count }
        edit.time { sink &+= MenuComposer.editMenu(context: rich, selection: selection, appItems: items).count }
    }
    print("## Composition in process (50 app items)\n")
    print("| what | p50 µs | p99 µs | samples |\n| --- | --- | --- | --- |")
    row("context menu, 50 items", context)
    row("edit menu + 50 app items", edit)
    print("\n(checksum \(sink % 10))\n")
}

if mode == "all" || mode == "calls" {
    let app = try MenuBusClient(address: address)
    try app.register(appId: "org.menubus.Bench")
    try app.publishContext("text", text)
    try app.updateSelection("text", selection)
    try app.publishContext("list", ContextInfo(kind: .file), items: fiftyItemMenu())
    let presenter = try MenuBusClient(address: address)
    let menu = try presenter.present(owner: "org.menubus.Bench", contextId: "list", kind: .context)
    let layout = try presenter.layout(of: menu)
    var ping = Samples(), editMenu = Samples(), getLayout = Samples(), localized = Samples()
    for _ in 0..<500 {
        try presenter.ping()
        _ = try presenter.editMenu(owner: "org.menubus.Bench", contextId: "text")
        _ = try presenter.editMenu(owner: "org.menubus.Bench", contextId: "text", locale: "ja")
        _ = try presenter.layout(of: menu)
    }
    // Interleaved, so drift on a shared machine hits every call alike.
    for _ in 0..<iterations {
        try ping.time { try presenter.ping() }
        try editMenu.time { _ = try presenter.editMenu(owner: "org.menubus.Bench", contextId: "text") }
        try localized.time { _ = try presenter.editMenu(owner: "org.menubus.Bench", contextId: "text", locale: "ja") }
        try getLayout.time { _ = try presenter.layout(of: menu) }
    }
    print("## Round trips to menubusd (client decodes every reply)\n")
    print("| call | p50 µs | p99 µs | samples |\n| --- | --- | --- | --- |")
    row("Peer.Ping", ping)
    row("GetEditMenu (text, range selected)", editMenu)
    row("GetEditMenu, locale ja (gettext catalogue)", localized)
    row("Menu.GetLayout (\(layout.elements.count) elements)", getLayout)
    print("")
    print("GetEditMenu p50 / Ping p50 = \(format(editMenu.p50 / ping.p50))x (target <= 2x)")
    print("GetEditMenu (ja) p50 / Ping p50 = \(format(localized.p50 / ping.p50))x (target <= 2x)")
    let japanese = try presenter.editMenu(owner: "org.menubus.Bench", contextId: "text", locale: "ja")
    let copyTitle = japanese.elements.first { $0.id == "menubus:copy" }?.title ?? "?"
    print("(locale ja: Copy reads '\(copyTitle)'\(copyTitle == "Copy" ? "; NO CATALOGUE FOUND, the row measured English" : ""))")
    print("GetLayout p50 / Ping p50 = \(format(getLayout.p50 / ping.p50))x (target <= 3x)\n")
}

if mode == "providers" {
    // Not part of "all": bench/providers/context-menu.sh runs it against a
    // menubusd that declares the providers.
    let app = try MenuBusClient(address: address)
    try app.register(appId: "org.menubus.Bench")
    let note = [MenuElement(id: "pin", title: "Pin Note"), MenuElement(id: "rename", title: "Rename"),
                MenuElement(id: "delete", title: "Delete", attributes: [.destructive])]
    try app.publishContext("note", text, items: note)
    try app.updateSelection("note", Selection(kind: .range, length: 12, text: "twelve chars"))
    let presenter = try MenuBusClient(address: address)
    let composed = try presenter.contextMenu(owner: "org.menubus.Bench", contextId: "note").elements
    let suggested = composed.filter { $0.id.hasPrefix("menubus:provider:") }
    let gathered = suggested.filter { $0.parent == "menubus:services" }.count
    var ping = Samples(), contextMenu = Samples()
    for _ in 0..<500 {
        try presenter.ping()
        _ = try presenter.contextMenu(owner: "org.menubus.Bench", contextId: "note")
    }
    // Interleaved, so drift on a shared machine hits both calls alike.
    for _ in 0..<iterations {
        try ping.time { try presenter.ping() }
        try contextMenu.time { _ = try presenter.contextMenu(owner: "org.menubus.Bench", contextId: "note") }
    }
    print("## GetContextMenu with declared providers\n")
    print("| call | p50 µs | p99 µs | samples |\n| --- | --- | --- | --- |")
    row("Peer.Ping", ping)
    row("GetContextMenu (\(suggested.count) provider items: \(suggested.count - gathered) shown, \(gathered) under Services)",
        contextMenu)
    print("")
    print("GetContextMenu p50 / Ping p50 = \(format(contextMenu.p50 / ping.p50))x (target <= 2x)\n")
}

if mode == "all" || mode == "memory" {
    let probe = try MenuBusClient(address: address)
    func rss() throws -> Double {
        let stats = try probe.stats()
        guard case .uint64(let bytes)? = stats.first(where: { $0.name == "rss-bytes" })?.value else { return .nan }
        return Double(bytes) / 1_048_576
    }
    let before = try rss()
    var apps: [MenuBusClient] = []
    let items = [MenuElement(id: "open", title: "Open With"), MenuElement(id: "rename", title: "Rename"),
                 MenuElement(id: "delete", title: "Delete", attributes: [.destructive])]
    for appIndex in 0..<100 {
        let app = try MenuBusClient(address: address)
        try app.register(appId: "org.menubus.Bench.App\(appIndex)")
        for contextIndex in 0..<100 {
            try app.publishContext("context\(contextIndex)", text, items: items)
            try app.updateSelection("context\(contextIndex)", selection)
        }
        apps.append(app)
    }
    let after = try rss()
    let contexts = try probe.stats().first { $0.name == "contexts" }?.value
    print("## Daemon memory, 100 apps x 100 contexts\n")
    print("| state | daemon RSS MiB |\n| --- | --- |")
    print("| before | \(format(before)) |")
    print("| 100 apps x 100 contexts (3 items, a selection each; Stats contexts = \(contexts.map { "\($0)" } ?? "?")) | \(format(after)) |")
    print("\nTarget: under 64 MiB.\n")
    for app in apps { app.close() }
}

/// Pumps each client in turn until `done()`; false after `timeout` seconds.
func pump(_ clients: [MenuBusClient], timeout: Double = 10, until done: () -> Bool) -> Bool {
    let deadline = now() + UInt64(timeout * 1e9)
    while !done() && now() < deadline {
        for client in clients { client.run(until: done, timeout: 0.001) }
    }
    return done()
}

if mode == "all" || mode == "deferred" {
    // From the app's ProvideElements reply to the presenter's LayoutChanged.
    let app = try MenuBusClient(address: address)
    var replied: UInt64 = 0
    app.provideElements = { _, _ in
        defer { replied = now() }
        return [MenuElement(id: "late-1", title: "Late One"), MenuElement(id: "late-2", title: "Late Two")]
    }
    try app.register(appId: "org.menubus.Bench.Deferred")
    try app.publishContext("row", ContextInfo(kind: .file), items: [
        MenuElement(id: "rename", title: "Rename"), MenuElement(id: "later", kind: .deferred, cached: false),
    ])
    let presenter = try MenuBusClient(address: address)
    var received: UInt64 = 0
    var signals = 0
    try presenter.observeMenus { _, _ in
        received = now()
        signals += 1
    }
    var fill = Samples(), ping = Samples()
    let rounds = max(200, iterations / 5)
    for round in 0..<(rounds + 50) {
        let before = signals
        replied = 0
        let menu = try presenter.present(owner: "org.menubus.Bench.Deferred", contextId: "row", kind: .context)
        guard pump([app], until: { replied != 0 }), pump([presenter], until: { signals > before }) else {
            print("deferred round \(round) did not complete")
            exit(1)
        }
        if round >= 50 { fill.nanoseconds.append(received - replied) }
        try presenter.dismiss(menu)
        if round >= 50 { try ping.time { try presenter.ping() } }
    }
    print("## Deferred element filled: app reply to presenter's LayoutChanged\n")
    print("| what | p50 µs | p99 µs | samples |\n| --- | --- | --- | --- |")
    row("Peer.Ping (same run)", ping)
    row("ProvideElements reply → LayoutChanged", fill)
    print("\nLayoutChanged after reply p50 / Ping p50 = \(format(fill.p50 / ping.p50))x (target <= 3x)\n")
}

if mode == "all" || mode == "isolation" {
    // Another app's GetEditMenu while one client hangs on 100 deferred calls.
    let other = try MenuBusClient(address: address)
    try other.register(appId: "org.menubus.Bench.Other")
    try other.publishContext("text", text)
    try other.updateSelection("text", selection)
    func measure() throws -> Samples {
        var samples = Samples()
        for _ in 0..<200 { _ = try other.editMenu(contextId: "text") }
        for _ in 0..<iterations { try samples.time { _ = try other.editMenu(contextId: "text") } }
        return samples
    }
    let before = try measure()
    let hung = try MenuBusClient(address: address)
    try hung.register(appId: "org.menubus.Bench.Hung")
    try hung.publishContext("row", ContextInfo(kind: .file),
                            items: (0..<20).map { MenuElement(id: "d\($0)", kind: .deferred, cached: false) })
    let presenter = try MenuBusClient(address: address)
    for _ in 0..<5 { _ = try presenter.present(owner: "org.menubus.Bench.Hung", contextId: "row", kind: .context) }
    // The hung client never reads: 100 ProvideElements calls stay pending in menubusd.
    let during = try measure()
    hung.close()
    presenter.close()
    let after = try measure()
    print("## Isolation: GetEditMenu of another app while one client hangs on 100 deferred calls\n")
    print("| phase | p50 µs | p99 µs | samples |\n| --- | --- | --- | --- |")
    row("before (no hung client)", before)
    row("100 calls pending on a hung client", during)
    row("after (hung client gone)", after)
    let baseline = (before.p99 + after.p99) / 2
    print("\np99 with the hung client / p99 without (mean of before and after) = \(format(during.p99 / baseline))x (target <= 1.5x)\n")
}

if mode == "all" || mode == "undo" {
    // RegisterUndo through menubusd with its journal on, one client, blocking calls.
    let app = try MenuBusClient(address: address)
    try app.register(appId: "org.menubus.Bench.Undo")
    let payload = [UInt8](repeating: 0x61, count: 64)
    var register = Samples(), ping = Samples()
    for index in 0..<500 { try app.registerUndo(document: "warmup", actionName: "Step \(index)", undo: payload, redo: payload) }
    let steps = max(iterations * 4, 20_000)
    let start = now()
    for index in 0..<steps {
        try register.time {
            try app.registerUndo(document: "bench", actionName: "Typing", undo: payload, redo: payload,
                                 mergeKey: index % 10 == 0 ? "" : "typing")
        }
        if index % 20 == 0 { try ping.time { try app.ping() } }
    }
    let seconds = Double(now() - start) / 1e9
    let state = try app.undoState(document: "bench")
    print("## RegisterUndo through menubusd, journal on (one client, blocking calls)\n")
    print("| call | p50 µs | p99 µs | samples |\n| --- | --- | --- | --- |")
    row("Peer.Ping (same run)", ping)
    row("RegisterUndo, 64-byte payloads", register)
    print("\n\(steps) steps in \(format(seconds)) s = \(Int(Double(steps) / seconds)) steps/s sustained (target >= 5,000), Pings included; document holds \(state.undoCount) steps (every tenth starts a new one)\n")
    // The same client without waiting for each reply (64 in flight), as an app
    // that records a step per keystroke would.
    let pipelined = max(iterations * 10, 50_000)
    var acknowledged = 0, failures = 0, sent = 0
    func sendNext() {
        guard sent < pipelined else { return }
        sent += 1
        app.registerUndo(document: "pipelined", actionName: "Typing", undo: payload, redo: payload,
                         mergeKey: sent % 10 == 0 ? "" : "typing") { result in
            if case .success = result { acknowledged += 1 } else { failures += 1 }
            sendNext()
        }
    }
    let pipelineStart = now()
    for _ in 0..<64 { sendNext() }
    _ = app.run(until: { acknowledged + failures >= pipelined }, timeout: 120)
    let pipelineSeconds = Double(now() - pipelineStart) / 1e9
    print("Pipelined (64 in flight): \(acknowledged) steps acknowledged in \(format(pipelineSeconds)) s = \(Int(Double(acknowledged) / pipelineSeconds)) steps/s sustained, \(failures) failures\n")
    try app.clearUndo(document: "bench")
    try app.clearUndo(document: "warmup")
    try app.clearUndo(document: "pipelined")
}

if mode == "all" || mode == "preview" {
    // PresentMenu of a photo whose preview carries a 256 KiB PNG against
    // the same photo without a preview, interleaved on one presenter. The
    // bytes after the PNG signature are noise: menubusd checks the
    // signature and the size and never decodes the picture.
    var generator = SystemRandomNumberGenerator()
    let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (8..<(256 << 10)).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let app = try MenuBusClient(address: address)
    try app.register(appId: "org.menubus.Bench.Preview")
    let items = [MenuElement(id: "open", title: "Open"), MenuElement(id: "rename", title: "Rename"),
                 MenuElement(id: "trash", title: "Move to Trash", attributes: [.destructive])]
    try app.publishContext("plain", ContextInfo(kind: .image, title: "Beach.png"), items: items)
    try app.publishContext("previewed", ContextInfo(kind: .image, title: "Beach.png",
                                                    preview: ContextPreview(title: "Beach.png", subtitle: "256 KiB",
                                                                            image: .png(png))), items: items)
    let presenter = try MenuBusClient(address: address)
    func present(_ contextId: String, _ samples: inout Samples, readPreview: Bool = false) throws {
        var menu: PresentedMenu?
        try samples.time {
            let shown = try presenter.present(owner: "org.menubus.Bench.Preview", contextId: contextId, kind: .context)
            menu = shown
            if readPreview, try presenter.preview(of: shown)?.image != .png(png) { throw BenchFailure("the preview came back changed") }
        }
        if let menu { try presenter.dismiss(menu) }
    }
    var ping = Samples(), plain = Samples(), previewed = Samples(), withRead = Samples(), scratch = Samples()
    for _ in 0..<200 {
        try present("plain", &scratch)
        try present("previewed", &scratch)
        try present("previewed", &scratch, readPreview: true)
    }
    let rounds = max(1, iterations / 5)
    for round in 0..<rounds {
        try ping.time { try presenter.ping() }
        // Each goes first every other round: the call after a Ping is not the same as the next.
        if round % 2 == 0 {
            try present("plain", &plain)
            try present("previewed", &previewed)
        } else {
            try present("previewed", &previewed)
            try present("plain", &plain)
        }
        try present("previewed", &withRead, readPreview: true)
    }
    print("## PresentMenu with a preview (a 256 KiB PNG) and without\n")
    print("| call | p50 µs | p99 µs | samples |\n| --- | --- | --- | --- |")
    row("Peer.Ping", ping)
    row("PresentMenu, no preview", plain)
    row("PresentMenu, preview with a 256 KiB PNG", previewed)
    row("PresentMenu, then Preview read (the PNG comes back)", withRead)
    print("\nPresentMenu with the preview / without, p50: \(format(previewed.p50 / plain.p50))x (target ≤ 3x)\n")
}

