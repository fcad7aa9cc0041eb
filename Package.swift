// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MenuBus",
    products: [
        .library(name: "MenuBus", targets: ["MenuBus"]),
        .executable(name: "menubusd", targets: ["menubusd"]),
        .executable(name: "menubus-cli", targets: ["menubus-cli"]),
    ],
    targets: [
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // glibc's gettext (libintl.h), for MenuBus's own titles in the user's language.
        .systemLibrary(name: "CGettext"),
        // The rooms, lowest first. Only MenuBusDBus imports CDBus; the model
        // and the undo store build and test without libdbus.
        .target(name: "MenuBusSupport"),
        .target(name: "MenuBusModel", dependencies: ["MenuBusSupport", "CGettext"]),
        .target(name: "MenuBusUndo", dependencies: ["MenuBusModel", "MenuBusSupport"], exclude: ["README.md"]),
        // The D-Bus value types and the one marshaller and reader, without libdbus.
        .target(name: "MenuBusCodec"),
        .target(name: "MenuBusDBus", dependencies: ["CDBus", "MenuBusCodec", "MenuBusSupport"]),
        .target(name: "MenuBusProtocol", dependencies: ["MenuBusModel", "MenuBusDBus"]),
        // Declared providers: key files, the folders they live in, the user's policy.
        .target(name: "MenuBusProviders", dependencies: ["MenuBusModel", "MenuBusCodec", "MenuBusSupport"]),
        .target(name: "MenuBusService",
                dependencies: ["MenuBusModel", "MenuBusUndo", "MenuBusDBus", "MenuBusProtocol", "MenuBusProviders",
                               "MenuBusSupport"]),
        // The client library apps import.
        .target(name: "MenuBus", dependencies: ["MenuBusModel", "MenuBusDBus", "MenuBusProtocol", "MenuBusSupport"]),
        .executableTarget(name: "menubusd", dependencies: ["MenuBusService", "MenuBusProtocol", "MenuBusSupport"]),
        .executableTarget(name: "menubus-cli",
                          dependencies: ["MenuBus", "MenuBusModel", "MenuBusDBus", "MenuBusProtocol", "MenuBusProviders",
                                         "MenuBusSupport", "MenuBusBundledProviders"]),
        // The providers that ship with MenuBus (Translate, Search Web, text
        // transforms): menubus-cli runs them when started as menubus-provider.
        .target(name: "MenuBusBundledProviders", dependencies: ["MenuBus", "MenuBusProviders", "MenuBusSupport"]),
        // Workloads the benchmarks measure and the tests check still compose.
        .target(name: "MenuBusBenchmarks", dependencies: ["MenuBusModel"], path: "bench/lib/Benchmarks"),
        .executableTarget(name: "menubus-bench", dependencies: ["MenuBus", "MenuBusModel", "MenuBusBenchmarks"],
                          path: "bench/lib/menubus-bench"),
        .executableTarget(name: "menubus-example", dependencies: ["MenuBus"], path: "examples/swift"),
        .executableTarget(name: "menubus-async-example", dependencies: ["MenuBus"], path: "examples/swift-async"),
        .executableTarget(name: "menubus-undo-bench", dependencies: ["MenuBusUndo", "MenuBusModel"], path: "bench/lib/undo-bench"),
        // Fixtures: what unit-test targets share. Each depends on no more than
        // the lowest library whose tests use it (SourceLayoutTests checks).
        // A seeded generator, so a failing random round replays.
        .target(name: "MenuBusRandomFixtures", path: "Tests/MenuBusRandomFixtures"),
        .target(name: "MenuBusModelFixtures", dependencies: ["MenuBusModel"], path: "Tests/MenuBusModelFixtures"),
        // Messages written byte by byte, as a peer that is not libdbus writes
        // them, and random value trees.
        .target(name: "MenuBusWireFixtures", dependencies: ["MenuBusCodec", "MenuBusRandomFixtures"],
                path: "Tests/MenuBusWireFixtures"),
        // A private dbus-daemon for tests that need a bus.
        .target(name: "MenuBusBusFixtures", path: "Tests/MenuBusBusFixtures"),
        // A unit-test target per library target, depending on it and nothing
        // above it (SourceLayoutTests checks); MenuBusTests runs the whole
        // daemon, the command line, the consumers and the package.
        .testTarget(name: "MenuBusSupportTests", dependencies: ["MenuBusSupport"]),
        .testTarget(name: "MenuBusModelTests",
                    dependencies: ["MenuBusModel", "MenuBusModelFixtures", "MenuBusRandomFixtures", "MenuBusBenchmarks"]),
        // The codec alone; MenuBusDBusTests holds it to libdbus's own writer,
        // loader and checks, its reference.
        .testTarget(name: "MenuBusCodecTests", dependencies: ["MenuBusCodec", "MenuBusRandomFixtures", "MenuBusWireFixtures"]),
        .testTarget(name: "MenuBusDBusTests", dependencies: ["MenuBusDBus", "MenuBusRandomFixtures", "MenuBusWireFixtures"]),
        .testTarget(name: "MenuBusProtocolTests",
                    dependencies: ["MenuBusProtocol", "MenuBusDBus", "MenuBusModel", "MenuBusModelFixtures"]),
        .testTarget(name: "MenuBusProvidersTests", dependencies: ["MenuBusProviders", "MenuBusCodec", "MenuBusModel"]),
        .testTarget(name: "MenuBusBundledProvidersTests", dependencies: ["MenuBusBundledProviders"]),
        .testTarget(name: "MenuBusUndoTests", dependencies: ["MenuBusUndo", "MenuBusModel"]),
        .testTarget(name: "MenuBusServiceTests",
                    dependencies: ["MenuBusService", "MenuBusProtocol", "MenuBusProviders", "MenuBusDBus", "MenuBusModel",
                                   "MenuBusModelFixtures", "MenuBusRandomFixtures", "MenuBusWireFixtures"]),
        // The client library's own logic, against a scripted menubusd on a private bus.
        .testTarget(name: "MenuBusClientTests",
                    dependencies: ["MenuBus", "MenuBusProtocol", "MenuBusDBus", "MenuBusModel", "MenuBusBusFixtures"]),
        .testTarget(
            name: "MenuBusTests",
            dependencies: ["MenuBus", "MenuBusService", "MenuBusProtocol", "MenuBusDBus", "MenuBusModel", "MenuBusUndo",
                           "MenuBusProviders", "MenuBusSupport", "MenuBusBusFixtures", "menubusd", "menubus-cli",
                           "menubus-example", "menubus-async-example"],
            exclude: ["Fixtures", "Golden"]
        ),
        // Fuzzing (Fuzz/README.md): the targets' entry points, libFuzzer's
        // executable (a replayer when built without -DFUZZING), and the test
        // that replays every committed seed and finding through them.
        .target(name: "MenuBusFuzzing",
                dependencies: ["MenuBus", "MenuBusDBus", "MenuBusModel", "MenuBusProtocol", "MenuBusProviders",
                               "MenuBusService", "MenuBusUndo"]),
        .executableTarget(name: "menubus-fuzz", dependencies: ["MenuBusFuzzing"]),
        .testTarget(name: "MenuBusFuzzTests", dependencies: ["MenuBusFuzzing"]),
    ],
    swiftLanguageModes: [.v6]
)
