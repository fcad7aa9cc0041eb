#if canImport(Glibc)
import Glibc
#endif
import MenuBus

// Benchmarks of the menu service, run by bench/menus.sh against a private bus
// and a release menubusd. Prints medians and ratios against Ping measured in
// the same run; it asserts nothing.

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
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
        print("usage: menubus-bench [--address ADDRESS] [--iterations N] [--mode all|calls|compose|memory]")
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
    var ping = Samples(), editMenu = Samples(), getLayout = Samples()
    for _ in 0..<500 {
        try presenter.ping()
        _ = try presenter.editMenu(owner: "org.menubus.Bench", contextId: "text")
        _ = try presenter.layout(of: menu)
    }
    // Interleaved, so drift on a shared machine hits every call alike.
    for _ in 0..<iterations {
        try ping.time { try presenter.ping() }
        try editMenu.time { _ = try presenter.editMenu(owner: "org.menubus.Bench", contextId: "text") }
        try getLayout.time { _ = try presenter.layout(of: menu) }
    }
    print("## Round trips to menubusd (client decodes every reply)\n")
    print("| call | p50 µs | p99 µs | samples |\n| --- | --- | --- | --- |")
    row("Peer.Ping", ping)
    row("GetEditMenu (text, range selected)", editMenu)
    row("Menu.GetLayout (\(layout.elements.count) elements)", getLayout)
    print("")
    print("GetEditMenu p50 / Ping p50 = \(format(editMenu.p50 / ping.p50))x (target <= 2x)")
    print("GetLayout p50 / Ping p50 = \(format(getLayout.p50 / ping.p50))x (target <= 3x)\n")
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
