#if canImport(Glibc)
import Glibc
#endif
import MenuBus
import MenuBusModel
import MenuBusBundledProviders

// One program, two names: installed as menubus-provider (a link to this
// binary), it serves the bundled providers, so the Swift runtime ships once.
if CommandLine.arguments.first?.split(separator: "/").last == "menubus-provider" {
    ProviderProgram.main(CommandLine.arguments)
}
exit(CommandLineTool.main(Array(CommandLine.arguments.dropFirst())))
