// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MenuBus",
    products: [
        .library(name: "MenuBus", targets: ["MenuBus"]),
        .executable(name: "menubusd", targets: ["menubusd"]),
        .executable(name: "menubus-cli", targets: ["menubus-cli"]),
        .executable(name: "menubus-provider", targets: ["menubus-provider"]),
    ],
    targets: [
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // glibc's gettext (libintl.h), for MenuBus's own titles in the user's language.
        .systemLibrary(name: "CGettext"),
        .target(name: "MenuBus", dependencies: ["CDBus", "CGettext"]),
        .executableTarget(name: "menubusd", dependencies: ["MenuBus"]),
        .executableTarget(name: "menubus-cli", dependencies: ["MenuBus"]),
        .executableTarget(name: "menubus-provider", dependencies: ["MenuBus"]),
        .executableTarget(name: "menubus-bench", dependencies: ["MenuBus"], path: "bench/menubus-bench"),
        .executableTarget(name: "menubus-example", dependencies: ["MenuBus"], path: "examples/swift"),
        .executableTarget(name: "menubus-async-example", dependencies: ["MenuBus"], path: "examples/swift-async"),
        .executableTarget(name: "menubus-undo-bench", dependencies: ["MenuBus"], path: "bench/undo-bench"),
        .testTarget(name: "MenuBusModelTests", dependencies: ["MenuBus"]),
        .testTarget(name: "MenuBusUndoTests", dependencies: ["MenuBus"]),
        .testTarget(
            name: "MenuBusTests",
            dependencies: ["MenuBus", "menubusd", "menubus-cli", "menubus-example", "menubus-provider",
                           "menubus-async-example"],
            exclude: ["Fixtures", "Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
