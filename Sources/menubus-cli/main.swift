#if canImport(Glibc)
import Glibc
#endif
import MenuBus

exit(CommandLineTool.main(Array(CommandLine.arguments.dropFirst())))
