#if canImport(Glibc)
import Glibc
#endif
import MenuBus
import MenuBusModel

exit(CommandLineTool.main(Array(CommandLine.arguments.dropFirst())))
