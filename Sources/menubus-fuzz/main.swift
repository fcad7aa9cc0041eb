// menubus-fuzz: MenuBus's libFuzzer targets (Fuzz/README.md).
//
// Built for fuzzing (bench/fuzz.sh does this), it hands its command line to
// libFuzzer's driver, which runs the target MENUBUS_FUZZ_TARGET names:
//   swift build -c debug --product menubus-fuzz --scratch-path .build/fuzz \
//     -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
// Built as usual, it replays inputs without libFuzzer:
//   menubus-fuzz TARGET FILE_OR_FOLDER...    runs each input, prints how many
//   menubus-fuzz --seeds FOLDER              writes the generated seeds per target
//
// (Not -parse-as-library with libFuzzer's own main: SwiftPM links an
// executable's main to the module's entry point, so the entry point stays
// here and calls LLVMFuzzerRunDriver, libFuzzer's main as a function.)
import MenuBusFuzzing

#if FUZZING
import Foundation

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ testOneInput: @convention(c) (UnsafeRawPointer?, Int) -> Int32) -> Int32

let name = ProcessInfo.processInfo.environment["MENUBUS_FUZZ_TARGET"] ?? ""
guard let target = FuzzTarget(rawValue: name) else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("menubus-fuzz: set MENUBUS_FUZZ_TARGET to one of \(names)\n".utf8))
    exit(2)
}
FuzzTarget.selected = target

/// What libFuzzer's driver calls with each input (also named for its
/// archive's own main, which the link keeps but never runs).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    FuzzTarget.selected?.run(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv, testOneInput))
#else
FuzzReplay.main(Array(CommandLine.arguments.dropFirst()))
#endif
