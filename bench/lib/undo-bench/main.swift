#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo

// Benchmarks of the undo store below D-Bus: journaled appends under three
// durability policies, reload of a 100,000-step document, and memory per
// step. Prints markdown; asserts nothing. Build in release:
//
//   swift build -c release --product menubus-undo-bench
//   .build/release/menubus-undo-bench [--dir DIR] [--steps N] [--payload BYTES]
//
// N (default 2,000,000) steps go into one document under group commit: past
// the 64 MiB quota the oldest steps drop and the journal compacts, so this
// is the steady state of a long session. The other rows use 100,000 steps
// (2,000 with an fdatasync each); reload uses a 100,000-step document.
//
// DIR (default: a new directory under /var/tmp, removed at the end) should
// be on the disk the daemon's $XDG_STATE_HOME is on: fsync costs are the
// disk's.

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func format(_ value: Double, _ digits: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    return "\((value * scale).rounded() / scale)"
}

struct Latencies {
    var nanoseconds: [UInt64] = []
    func percentile(_ p: Double) -> Double {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
    }
}

/// Heap bytes in use: glibc's malloc_info XML, from its grand totals,
/// system "current" minus free chunks ("fast", "rest") plus "mmap". Swift's
/// Glibc module has no malloc.h (no mallinfo2), so it is looked up by name.
func heapInUse() -> Int {
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_info") else { return 0 }
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
    var buffer: UnsafeMutablePointer<CChar>?
    var size = 0
    guard let stream = open_memstream(&buffer, &size) else { return 0 }
    _ = mallocInfo(0, stream)
    fclose(stream)
    guard let buffer else { return 0 }
    defer { free(buffer) }
    let xml = String(cString: buffer)
    // The totals after the last </heap> cover every arena.
    guard let totals = xml.split(separator: "</heap>").last else { return 0 }
    func value(_ tag: String) -> Int {
        guard let range = totals.firstRange(of: tag) else { return 0 }
        let rest = totals[range.upperBound...]
        guard let sizeRange = rest.firstRange(of: "size=\"") else { return 0 }
        return Int(rest[sizeRange.upperBound...].prefix { $0.isNumber }) ?? 0
    }
    return value("<system type=\"current\"") - value("<total type=\"fast\"") - value("<total type=\"rest\"")
        + value("<total type=\"mmap\"")
}

func removeTree(_ path: String) {
    guard let dir = opendir(path) else { unlink(path); return }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name == "." || name == ".." { continue }
        let child = path + "/" + name
        if entry.pointee.d_type == UInt8(DT_DIR) { removeTree(child) } else { unlink(child) }
    }
    closedir(dir)
    rmdir(path)
}

var directory: String?
var steps = 2_000_000
let reloadSteps = 100_000
var payload = 32
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--dir": directory = arguments.isEmpty ? nil : arguments.removeFirst()
    case "--steps": steps = max(reloadSteps, Int(arguments.isEmpty ? "" : arguments.removeFirst()) ?? steps)
    case "--payload": payload = Int(arguments.isEmpty ? "" : arguments.removeFirst()) ?? payload
    default:
        print("usage: menubus-undo-bench [--dir DIR] [--steps N] [--payload BYTES]")
        exit(2)
    }
}
var ownDirectory = false
if directory == nil {
    var template = Array("/var/tmp/menubus-undo-bench-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { print("mkdtemp failed"); exit(1) }
    directory = String(cString: made)
    ownDirectory = true
}
let root = directory ?? "/var/tmp"
defer { if ownDirectory { removeTree(root) } }

let syncInterval: UInt64 = 100_000_000   // UndoStore.syncInterval, 100 ms
let undoPayload = [UInt8](repeating: 0x75, count: payload)
let redoPayload = [UInt8](repeating: 0x72, count: payload)

/// Registers `count` steps in `document`; `sync` decides after each step
/// whether to call sync(). Returns steps/s, latencies and syncs made.
func appends(_ bench: UndoBenchmark, document: String, count: Int, mergeKey: String = "",
             sync: (UInt64, UInt64) -> Bool) throws -> (perSecond: Double, latencies: Latencies, syncs: Int, compactions: Int) {
    var latencies = Latencies()
    latencies.nanoseconds.reserveCapacity(count)
    var syncs = 0
    var compactions = 0
    var journal = 0
    var lastSync = now()
    let start = now()
    for _ in 0..<count {
        let before = now()
        try bench.register(document: document, actionName: "Typing", undo: undoPayload, redo: redoPayload,
                           mergeKey: mergeKey, now: 1_800_000_000)
        let after = now()
        latencies.nanoseconds.append(after - before)
        let size = bench.journalBytes(document: document)
        if size < journal { compactions += 1 }
        journal = size
        if sync(after, lastSync) {
            bench.sync()
            syncs += 1
            lastSync = now()
        }
    }
    bench.sync()
    syncs += 1
    let elapsed = Double(now() - start) / 1e9
    return (Double(count) / elapsed, latencies, syncs, compactions)
}

print("## Undo journal below D-Bus (menubus-undo-bench)\n")
print("Payloads \(payload) + \(payload) bytes a step, action name \"Typing\"; directory \(root)\n")
print("| durability | steps | steps/s | register p50 µs | p99 µs | max µs | fdatasyncs | compactions |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
func row(_ name: String, _ count: Int, _ result: (perSecond: Double, latencies: Latencies, syncs: Int, compactions: Int)) {
    print("| \(name) | \(count) | \(Int(result.perSecond)) | \(format(result.latencies.percentile(0.5))) | "
          + "\(format(result.latencies.percentile(0.99))) | \(format(result.latencies.percentile(1))) | "
          + "\(result.syncs) | \(result.compactions) |")
}
do {
    let sustained = UndoBenchmark(stateDirectory: root + "/sustained")
    row("group commit: fdatasync at most every 100 ms (and at the end)", steps,
        try appends(sustained, document: "doc", count: steps) { now, last in now - last >= syncInterval })
    let kept = sustained.undoCount(document: "doc")
    sustained.close()

    let none = UndoBenchmark(stateDirectory: root + "/none")
    row("write(2) only, one fdatasync at the end", reloadSteps,
        try appends(none, document: "doc", count: reloadSteps) { _, _ in false })
    none.close()

    let fsyncSteps = 2_000
    let each = UndoBenchmark(stateDirectory: root + "/each")
    row("fdatasync after every step", fsyncSteps, try appends(each, document: "doc", count: fsyncSteps) { _, _ in true })
    each.close()

    let typing = UndoBenchmark(stateDirectory: root + "/typing")
    row("group commit, every step merged into one (typing)", reloadSteps,
        try appends(typing, document: "doc", count: reloadSteps, mergeKey: "typing") { now, last in now - last >= syncInterval })
    let typingJournal = typing.journalBytes(document: "doc")
    typing.close()
    print("\nThe sustained document kept \(kept) steps under the 64 MiB quota (the oldest dropped). The typing "
          + "journal ends at \(typingJournal) bytes for one step of \(reloadSteps) registrations.\n")

    let groupState = root + "/reload"
    let group = UndoBenchmark(stateDirectory: groupState)
    _ = try appends(group, document: "doc", count: reloadSteps) { now, last in now - last >= syncInterval }
    group.close()

    // Reload of the group-commit document: as appended (register records), then as a snapshot.
    print("| reload of one document | steps | journal bytes | load ms | findings |")
    print("| --- | ---: | ---: | ---: | ---: |")
    let again = UndoBenchmark(stateDirectory: groupState)
    let journal = again.journalBytes(document: "doc")
    again.close()
    for _ in 0..<2 { _ = UndoBenchmark.reload(stateDirectory: groupState) }   // warm the page cache
    var start = now()
    let loaded = UndoBenchmark.reload(stateDirectory: groupState)
    var elapsed = Double(now() - start) / 1e6
    print("| appended journal (\(reloadSteps) register records) | \(loaded.steps) | \(journal) | \(format(elapsed)) | \(loaded.findings.count) |")
    let compacted = UndoBenchmark(stateDirectory: groupState)
    start = now()
    try compacted.compact(document: "doc")
    let compactMs = Double(now() - start) / 1e6
    let snapshotBytes = compacted.journalBytes(document: "doc")
    compacted.close()
    start = now()
    let fromSnapshot = UndoBenchmark.reload(stateDirectory: groupState)
    elapsed = Double(now() - start) / 1e6
    print("| snapshot after compaction (written in \(format(compactMs)) ms incl. fsync, rename, directory fsync) | "
          + "\(fromSnapshot.steps) | \(snapshotBytes) | \(format(elapsed)) | \(fromSnapshot.findings.count) |")
} catch {
    print("failed: \(error)")
    exit(1)
}

// Memory: heap bytes in use around a stack built and held in memory.
print("\n| memory per step (heap in use, \(reloadSteps) steps, one undo + one redo payload each) | bytes/step | of which payloads | overhead/step |")
print("| --- | ---: | ---: | ---: |")
for (name, bytes) in [("Typing", 16), ("Change Paragraph Style", 16), ("Typing", 0), ("Typing", 1024)] {
    let before = heapInUse()
    let held = UndoBenchmark.makeStack(steps: reloadSteps, payloadBytes: bytes, actionName: name)
    let after = heapInUse()
    let perStep = Double(after - before) / Double(max(1, held.undoCount))
    let payloadPerStep = Double(held.payloadBytes) / Double(max(1, held.undoCount))
    print("| name \"\(name)\", payloads \(bytes) + \(bytes) bytes | \(format(perStep)) | \(format(payloadPerStep)) | "
          + "\(format(perStep - payloadPerStep)) |")
    withExtendedLifetime(held) {}
}
print("\nTargets: >= 5,000 steps/s journaled; reload of 100,000 steps <= 1 s; <= 200 bytes a step beyond payloads.")
